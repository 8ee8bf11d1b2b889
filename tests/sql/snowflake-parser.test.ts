import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLadderError } from '../../src/errors.js';
import { requireSnowflakeParser, snowflakeParserPath, snowflakeParserVersion, SNOWFLAKE_PARSER_RANGE, type Resolve } from '../../src/sql/snowflake-parser.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A resolver for an install without node-sql-parser: every lookup fails as Node's does. */
const notInstalled: Resolve = (specifier) => {
  throw Object.assign(new Error(`Cannot find module '${specifier}'`), { code: 'MODULE_NOT_FOUND' });
};

describe('the Snowflake parser (node-sql-parser, an optional peer)', () => {
  it('resolves its Snowflake-only build when installed (a dev dependency here)', () => {
    expect(path.relative(ROOT, snowflakeParserPath()!)).toBe(path.join('node_modules', 'node-sql-parser', 'build', 'snowflake.js'));
    expect(snowflakeParserVersion()).toBe('5.4.0');
    expect(path.relative(ROOT, requireSnowflakeParser())).toBe(path.join('node_modules', 'node-sql-parser', 'build', 'snowflake.js'));
  });

  it('is undefined, not an error, when it is not installed', () => {
    expect(snowflakeParserPath(notInstalled)).toBeUndefined();
    expect(snowflakeParserVersion(notInstalled)).toBeUndefined();
  });

  it('throws missing_dependency with the install command for a Snowflake text without it', () => {
    let thrown: unknown;
    try {
      requireSnowflakeParser(notInstalled);
    } catch (error) {
      thrown = error;
    }
    expect(isLadderError(thrown, 'missing_dependency')).toBe(true);
    expect((thrown as Error).message).toBe(
      "Snowflake SQL needs node-sql-parser, an optional peer dependency of text2sql-ladder that is not installed (no other dialect uses it; about 90 MB): npm install --save-dev node-sql-parser@'^5.4.0'",
    );
  });

  it('is an optional peer of the package, with the range the message names, and no dependency', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(manifest['dependencies']!['node-sql-parser']).toBeUndefined();
    expect(manifest['peerDependencies']!['node-sql-parser']).toBe(SNOWFLAKE_PARSER_RANGE);
    expect(manifest['peerDependenciesMeta']!['node-sql-parser']).toEqual({ optional: true });
  });
});
