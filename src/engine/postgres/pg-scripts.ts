/**
 * Runs a fixture's SQL scripts on a PostgreSQL database, as the role the connection logged in as
 * (the fixture owner: never a superuser). Plain SQL as `pg_dump` writes it is read:
 * - statements are split with the PostgreSQL lexer (strings, dollar quotes, comments) and sent in
 *   batches through the simple protocol, so an error names the script's line;
 * - `COPY … FROM STDIN;` takes the lines after it up to `\.` as its data;
 * - `pg_dump`'s `\restrict` / `\unrestrict` lines are skipped; any other psql meta-command
 *   (`\connect`, `\i`, `\!` …) is refused: scripts are SQL, and nothing here runs a shell;
 * - `ALTER … OWNER TO <role>` statements are skipped, as `pg_restore --no-owner` does: the
 *   fixture's owner role owns every object it creates, and a dump names its own server's roles;
 * - a script builds its own database only: a statement that reaches past it is refused before
 *   the server sees it, naming the line ({@link admitPostgresStatement}): another database
 *   (`CREATE | ALTER | DROP DATABASE`, `COMMENT ON DATABASE`, `GRANT` / `REVOKE`, whose privileges
 *   are the builder's to set), a role (`CREATE | ALTER | DROP ROLE | USER | GROUP`, `SET ROLE`,
 *   `SET SESSION AUTHORIZATION`, `REASSIGN | DROP OWNED`), the server (`ALTER SYSTEM`, `LOAD`,
 *   `CHECKPOINT`, foreign servers, subscriptions, tablespaces, event triggers) or a file
 *   (`COPY` other than `FROM STDIN` / `TO STDOUT`), and turning `standard_conforming_strings`
 *   off, which would change how the rest of the script is split. What the lexer cannot see
 *   (dynamic SQL in a `DO` block) meets the role's own limits: it owns nothing outside the
 *   database being built (postgres-build.ts), and the session is checked after every batch.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { lineLocator } from '../../sql/line-locator.js';
import { tokenizePostgres } from '../../sql/postgres-lexer.js';

/** One piece of a script, with the 1-based line it starts on. */
export type ScriptPiece =
  | { readonly kind: 'sql'; readonly text: string; readonly line: number; readonly alone: boolean }
  | { readonly kind: 'copy'; readonly text: string; readonly data: string; readonly line: number }
  | { readonly kind: 'meta'; readonly text: string; readonly line: number };

/** Meta-commands of `pg_dump` output that carry no SQL. */
const SKIPPED_META = /^\\(restrict|unrestrict)\b/;
/** `pg_dump`'s ownership statements (`ALTER TABLE public.t OWNER TO postgres`). */
const OWNER_TO = /^ALTER\s[^;]*\sOWNER\s+TO\s+("[^"]*(""[^"]*)*"|[^\s;]+)$/i;

/** Statements that cannot run inside a transaction block, so they are never batched. */
const ALONE = /^\s*(vacuum|cluster|reindex|create\s+(unique\s+)?index\s+concurrently|create\s+database|drop\s+database)\b/i;

function skipSpaceAndComments(sql: string, at: number): number {
  let i = at;
  for (;;) {
    while (i < sql.length && /\s/.test(sql[i]!)) i += 1;
    if (sql.startsWith('--', i)) {
      const newline = sql.indexOf('\n', i);
      i = newline < 0 ? sql.length : newline + 1;
      continue;
    }
    if (sql.startsWith('/*', i)) {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? sql.length : close + 2;
      continue;
    }
    return i;
  }
}

/**
 * Splits a script into statements, `COPY … FROM STDIN` blocks and meta-command lines.
 * @example splitScript('CREATE TABLE t (a int);\nCOPY t FROM stdin;\n1\n\\.\n').map((p) => p.kind) // ['sql', 'copy']
 */
export function splitScript(script: string): ScriptPiece[] {
  const pieces: ScriptPiece[] = [];
  const locate = lineLocator(script);
  const lineOf = (offset: number): number => locate(offset).line;
  let at = 0;
  while (at < script.length) {
    at = skipSpaceAndComments(script, at);
    if (at >= script.length) break;
    if (script[at] === '\\') {
      const newline = script.indexOf('\n', at);
      const end = newline < 0 ? script.length : newline;
      const text = script.slice(at, end).trim();
      if (!SKIPPED_META.test(text)) pieces.push({ kind: 'meta', text, line: lineOf(at) });
      at = end + 1;
      continue;
    }
    const tokens = tokenizePostgres(script, at, true);
    if (tokens.length === 0) break;
    const last = tokens[tokens.length - 1]!;
    const start = tokens[0]!.start;
    const end = last.end;
    const text = script.slice(start, last.kind === 'semicolon' ? last.start : end).trim();
    const words = tokens.filter((token) => token.kind === 'word').map((token) => token.value.toLowerCase());
    const isCopyIn = words[0] === 'copy' && words.some((word, index) => word === 'from' && words[index + 1] === 'stdin');
    if (text === '') {
      at = end;
      continue;
    }
    if (!isCopyIn) {
      pieces.push({ kind: 'sql', text, line: lineOf(start), alone: ALONE.test(text) });
      at = end;
      continue;
    }
    const newline = script.indexOf('\n', end);
    const dataStart = newline < 0 ? script.length : newline + 1;
    const terminator = /^\\\.\r?$/m;
    terminator.lastIndex = 0;
    const rest = script.slice(dataStart);
    const match = terminator.exec(rest);
    const dataEnd = match === null ? script.length : dataStart + match.index;
    pieces.push({ kind: 'copy', text, data: script.slice(dataStart, dataEnd), line: lineOf(start) });
    const after = match === null ? script.length : script.indexOf('\n', dataEnd);
    at = after < 0 ? script.length : after + 1;
  }
  return pieces;
}

/** First words (lower-case, space-separated) of statements that reach past the database being built. */
const REFUSED_STARTS: readonly (readonly [RegExp, string])[] = [
  [/^(create|alter|drop) database\b/, 'another database is not a fixture script\'s to create, change or drop'],
  [/^comment on database\b/, 'a database\'s comment holds the builder\'s record'],
  [/^(grant|revoke)\b/, 'privileges are the builder\'s to set (it grants SELECT to the reader role); a dump made with pg_dump --no-privileges loads'],
  [/^(create|alter|drop) (role|user|group)\b/, 'roles are the builder\'s'],
  [/^(reassign|drop) owned\b/, 'roles are the builder\'s'],
  [/^(set|reset)( session| local)? (role|session authorization)\b/, 'a script runs as the fixture\'s owner role only'],
  [/^alter system\b/, 'the server\'s settings are not a fixture\'s'],
  [/^load\b/, 'loading a library into the server is not a fixture\'s'],
  [/^checkpoint\b/, 'the server\'s checkpoints are not a fixture\'s'],
  [/^(create|alter|drop) (server|foreign data wrapper|user mapping|subscription|tablespace|event trigger)\b/, 'it reaches past the database being built'],
  [/^import foreign schema\b/, 'it reaches past the database being built'],
];

/**
 * Whether a script may run a statement (see the module doc).
 * @param text - one statement of {@link splitScript} (`sql` or the command of a `copy` piece).
 * @returns the reason it is refused, or `undefined` when it may run.
 */
export function admitPostgresStatement(text: string): string | undefined {
  const tokens = tokenizePostgres(text);
  const words: string[] = [];
  for (const token of tokens) {
    if (token.kind !== 'word') break;
    words.push(token.value.toLowerCase());
  }
  const start = words.join(' ');
  for (const [pattern, why] of REFUSED_STARTS) if (pattern.test(start)) return `${start.split(' ').slice(0, 3).join(' ').toUpperCase()}: ${why}`;
  const all = tokens.map((token) => (token.kind === 'word' ? token.value.toLowerCase() : token.kind === 'string' ? "'" : token.value));
  if (words[0] === 'copy') {
    const fromStdin = all.some((word, index) => word === 'from' && all[index + 1] === 'stdin');
    const toStdout = all.some((word, index) => word === 'to' && all[index + 1] === 'stdout');
    if (all.includes('program') || !(fromStdin || toStdout)) return 'COPY reads or writes a file or runs a program on the server; a script\'s COPY reads FROM STDIN (its data follows it in the script)';
  }
  const setsConformingStrings = tokens.findIndex((token) => token.kind === 'word' && token.value.toLowerCase() === 'standard_conforming_strings');
  if (setsConformingStrings >= 0) {
    const value = tokens.slice(setsConformingStrings + 1).find((token) => token.kind === 'word' || token.kind === 'string');
    if (words[0] !== 'set' || value === undefined || !['on', 'true', '1'].includes(value.value.toLowerCase())) return 'standard_conforming_strings stays on: with it off, the rest of the script would be split differently from how it was checked';
  }
  return undefined;
}

/** A script that failed: the line of the statement, the server's message and its SQLSTATE (when the server sent one). */
export class ScriptError extends Error {
  constructor(
    readonly line: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ScriptError';
  }
}

/** The SQLSTATE of a server error, or `undefined` (a client-side error such as a lost connection). */
function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** A server error of a statement, as a {@link ScriptError} on `line`. */
function scriptError(line: number, error: unknown): ScriptError {
  return new ScriptError(line, (error as Error).message, sqlState(error));
}

/**
 * Whether a failed batch can be run again one statement at a time to find the failing line: not
 * when the session is gone (SQLSTATE classes 08, connection, and 57, operator intervention: the
 * build's watch ended the backend) or the caller stopped the build.
 */
function canRetry(error: unknown, progress: ScriptProgress): boolean {
  const code = sqlState(error);
  return code !== undefined && !code.startsWith('08') && !code.startsWith('57') && progress.stopped?.() !== true;
}

/** Most characters of statements sent in one simple-protocol message. */
const BATCH_CHARS = 1 << 20;

/** What a build learns of a running script (postgres-build.ts watches the deadline with it). */
export interface ScriptProgress {
  /** What is sent to the server next: the lines of its first and last statements. */
  readonly line: (first: number, last: number) => void;
  /** True once the caller ended the session (a deadline, a size cap): nothing more is sent. */
  readonly stopped?: () => boolean;
}

/** What a statement's marker writes in `application_name`, before its line number. */
export const SCRIPT_LINE_PREFIX = 'text2sql-ladder script line ';

/**
 * The statement sent before each statement of a script: it names the line in the session's
 * `application_name` (which `pg_stat_activity` shows to the build's watch) and reads
 * `standard_conforming_strings`. Line 0: only the read (after the last statement).
 */
function scriptMarker(line: number): string {
  return line === 0 ? "SELECT current_setting('standard_conforming_strings') AS scs" : `SELECT set_config('application_name', '${SCRIPT_LINE_PREFIX}${line}', false) AS line, current_setting('standard_conforming_strings') AS scs`;
}

/**
 * Runs a script's pieces in order on `client`, each admitted first ({@link admitPostgresStatement}).
 * @throws ScriptError naming the 1-based line of the failing or refused statement (or
 *   meta-command) and the server's message or the reason.
 */
export async function runScript(client: pg.Client, script: string, progress: ScriptProgress = { line: () => undefined }): Promise<void> {
  const pieces = splitScript(script);
  // Every statement is judged before any runs: a refused one leaves the database untouched.
  for (const piece of pieces) {
    if (piece.kind === 'meta') throw new ScriptError(piece.line, `psql meta-command ${piece.text.split(/\s/)[0]} is not run: fixture scripts are SQL (only pg_dump's \\restrict and \\unrestrict lines are skipped)`);
    const refused = admitPostgresStatement(piece.text);
    if (refused !== undefined) throw new ScriptError(piece.line, `refused: ${refused}`);
  }
  let batch: { text: string; line: number; offset: number }[] = [];
  let batchText = '';
  /**
   * Sends statements the lexer split as one simple-protocol message, each after a marker that
   * names its line in the session's `application_name` (so a build stopped mid-batch can say which
   * statement ran: {@link SCRIPT_LINE_PREFIX}) and that reads `standard_conforming_strings`, which
   * must stay on (the batch was split as the lexer reads strings; the next batch is read by the
   * server under the setting the last one left). A statement that must run alone gets its own
   * messages.
   * @throws ScriptError naming the line of the statement that turned the setting off.
   */
  const send = async (pieces: readonly { readonly text: string; readonly line: number }[], alone: boolean): Promise<void> => {
    const results: pg.QueryResult[] = [];
    if (alone) {
      results.push(await client.query(scriptMarker(pieces[0]!.line)), await client.query(pieces[0]!.text), await client.query(scriptMarker(0)));
    } else {
      const text = pieces.map((piece) => `${scriptMarker(piece.line)};\n${piece.text};\n`).join('') + scriptMarker(0);
      const answer = await client.query(text);
      results.push(...(Array.isArray(answer) ? answer : [answer]));
    }
    // Marker i (before statement i) reads the setting as statement i − 1 left it; the last marker, after the last statement.
    for (let i = 1; i <= pieces.length; i += 1) {
      if ((results[2 * i] as pg.QueryResult<{ scs: string }> | undefined)?.rows[0]?.scs !== 'on') {
        throw new ScriptError(pieces[i - 1]!.line, 'refused: the script turned standard_conforming_strings off (dynamic SQL or a function), which would change how the rest of the script is split');
      }
    }
  };
  const flush = async (alone = false): Promise<void> => {
    if (batch.length === 0) return;
    const sent = batch;
    batch = [];
    batchText = '';
    progress.line(sent[0]!.line, sent[sent.length - 1]!.line);
    try {
      await send(sent, alone);
    } catch (error) {
      if (error instanceof ScriptError) throw error;
      const position = Number((error as { position?: string }).position) - 1;
      if (Number.isInteger(position) && position >= 0) {
        const failing = [...sent].reverse().find((piece) => piece.offset <= position) ?? sent[0]!;
        throw scriptError(failing.line, error);
      }
      // No position (a constraint, a missing table at run time): the batch rolled back as one
      // transaction, so run it again one statement at a time to find the line.
      if (sent.length > 1 && canRetry(error, progress)) {
        for (const piece of sent) {
          progress.line(piece.line, piece.line);
          try {
            await send([piece], false);
          } catch (single) {
            if (single instanceof ScriptError) throw single;
            throw scriptError(piece.line, single);
          }
        }
      }
      throw scriptError(sent[0]!.line, error);
    }
  };
  for (const piece of pieces) {
    if (piece.kind === 'meta') continue;
    if (piece.kind === 'copy') {
      await flush();
      progress.line(piece.line, piece.line);
      try {
        await pipeline(Readable.from([Buffer.from(piece.data)]), client.query(copyFrom(piece.text)));
      } catch (error) {
        throw scriptError(piece.line, error);
      }
      continue;
    }
    if (OWNER_TO.test(piece.text)) continue;
    if (piece.alone) {
      await flush();
      batch.push({ text: piece.text, line: piece.line, offset: 0 });
      batchText = piece.text;
      await flush(true);
      continue;
    }
    if (batchText.length + piece.text.length > BATCH_CHARS) await flush();
    batchText += `${scriptMarker(piece.line)};\n`;
    batch.push({ text: piece.text, line: piece.line, offset: batchText.length });
    batchText += `${piece.text};\n`;
  }
  await flush();
}
