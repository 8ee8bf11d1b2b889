/**
 * Where the Snowflake parser comes from. sql-parser-cst has no Snowflake dialect, so Snowflake
 * text is read by node-sql-parser — a 90 MB package (every dialect's grammar, each with source
 * maps and a UMD copy) that no other dialect needs. It is therefore an optional peer dependency:
 * installed only by those who grade Snowflake SQL, and loaded only for a Snowflake text, from its
 * Snowflake-only build (`build/snowflake.js`: 260 KB, loaded in about 15 ms, against 2.5 MB and
 * 80 ms for the package's main file, which holds every grammar; the trees are the same).
 *
 * A Snowflake text without the package is a setup fault, not a model failure: {@link
 * requireSnowflakeParser} throws LadderError `missing_dependency` (an ERROR row in promptfoo, exit
 * status 2 on the command line, a thrown error in the matchers) with the install command.
 */
import { createRequire } from 'node:module';
import { LadderError } from '../errors.js';

/** The package that parses Snowflake SQL. */
export const SNOWFLAKE_PARSER_PACKAGE = 'node-sql-parser';

/** The range of it text2sql-ladder is tested with (its `peerDependencies` entry says the same). */
export const SNOWFLAKE_PARSER_RANGE = '^5.4.0';

/** The file loaded: the package's Snowflake-only build. */
const SNOWFLAKE_BUILD = `${SNOWFLAKE_PARSER_PACKAGE}/build/snowflake.js`;

/** Resolves a module specifier to a file, throwing when it cannot (as `require.resolve`). */
export type Resolve = (specifier: string) => string;

const resolveFromHere: Resolve = (specifier) => createRequire(import.meta.url).resolve(specifier);

/**
 * The Snowflake parser's file (absolute), or `undefined` when node-sql-parser is not installed
 * where this package can see it. Only resolves the path: nothing is loaded.
 * @param resolve - the resolver (default: from this package, as Node resolves its imports).
 */
export function snowflakeParserPath(resolve: Resolve = resolveFromHere): string | undefined {
  try {
    return resolve(SNOWFLAKE_BUILD);
  } catch {
    return undefined;
  }
}

/**
 * The installed node-sql-parser's version, or `undefined` when it is not installed (or its
 * `package.json` cannot be read).
 * @param resolve - as {@link snowflakeParserPath}.
 */
export function snowflakeParserVersion(resolve: Resolve = resolveFromHere): string | undefined {
  try {
    const manifest = createRequire(import.meta.url)(resolve(`${SNOWFLAKE_PARSER_PACKAGE}/package.json`)) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Snowflake parser's file, for a Snowflake text about to be parsed.
 * @param resolve - as {@link snowflakeParserPath}.
 * @throws LadderError `missing_dependency` when node-sql-parser is not installed; the message
 *   names the package, why it is needed and the command that installs it.
 */
export function requireSnowflakeParser(resolve: Resolve = resolveFromHere): string {
  const found = snowflakeParserPath(resolve);
  if (found !== undefined) return found;
  throw new LadderError(
    'missing_dependency',
    `Snowflake SQL needs ${SNOWFLAKE_PARSER_PACKAGE}, an optional peer dependency of text2sql-ladder that is not installed ` +
      `(no other dialect uses it; about 90 MB): npm install --save-dev ${SNOWFLAKE_PARSER_PACKAGE}@'${SNOWFLAKE_PARSER_RANGE}'`,
  );
}
