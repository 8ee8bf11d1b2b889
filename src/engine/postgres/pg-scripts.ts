/**
 * Runs a fixture's SQL scripts on a PostgreSQL database, as the role the connection logged in as
 * (the fixture owner: never a superuser). Plain SQL as `pg_dump` writes it is read:
 * - statements are split with the PostgreSQL lexer (strings, dollar quotes, comments) and sent in
 *   batches through the simple protocol, so an error names the script's line;
 * - `COPY … FROM STDIN;` takes the lines after it up to `\.` as its data;
 * - `pg_dump`'s `\restrict` / `\unrestrict` lines are skipped; any other psql meta-command
 *   (`\connect`, `\i`, `\!` …) is refused: scripts are SQL, and nothing here runs a shell;
 * - `ALTER … OWNER TO <role>` statements are skipped, as `pg_restore --no-owner` does: the
 *   fixture's owner role owns every object it creates, and a dump names its own server's roles.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
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
  const lineStarts = [0];
  for (let i = 0; i < script.length; i += 1) if (script[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset: number): number => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
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

/** A script that failed: the line of the statement, and the server's message. */
export class ScriptError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'ScriptError';
  }
}

/** Most characters of statements sent in one simple-protocol message. */
const BATCH_CHARS = 1 << 20;

/**
 * Runs a script's pieces in order on `client`.
 * @throws ScriptError naming the 1-based line of the failing statement (or meta-command) and the
 *   server's message.
 */
export async function runScript(client: pg.Client, script: string): Promise<void> {
  const pieces = splitScript(script);
  let batch: { text: string; line: number; offset: number }[] = [];
  let batchText = '';
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const sent = batch;
    const text = batchText;
    batch = [];
    batchText = '';
    try {
      await client.query(text);
    } catch (error) {
      const position = Number((error as { position?: string }).position) - 1;
      if (Number.isInteger(position) && position >= 0) {
        const failing = [...sent].reverse().find((piece) => piece.offset <= position) ?? sent[0]!;
        throw new ScriptError(failing.line, (error as Error).message);
      }
      // No position (a constraint, a missing table at run time): the batch rolled back as one
      // transaction, so run it again one statement at a time to find the line.
      if (sent.length > 1) {
        for (const piece of sent) {
          try {
            await client.query(piece.text);
          } catch (single) {
            throw new ScriptError(piece.line, (single as Error).message);
          }
        }
      }
      throw new ScriptError(sent[0]!.line, (error as Error).message);
    }
  };
  for (const piece of pieces) {
    if (piece.kind === 'meta') {
      await flush();
      throw new ScriptError(piece.line, `psql meta-command ${piece.text.split(/\s/)[0]} is not run: fixture scripts are SQL (only pg_dump's \\restrict and \\unrestrict lines are skipped)`);
    }
    if (piece.kind === 'copy') {
      await flush();
      try {
        await pipeline(Readable.from([Buffer.from(piece.data)]), client.query(copyFrom(piece.text)));
      } catch (error) {
        throw new ScriptError(piece.line, (error as Error).message);
      }
      continue;
    }
    if (OWNER_TO.test(piece.text)) continue;
    if (piece.alone) {
      await flush();
      batch.push({ text: piece.text, line: piece.line, offset: 0 });
      batchText = piece.text;
      await flush();
      continue;
    }
    if (batchText.length + piece.text.length > BATCH_CHARS) await flush();
    batch.push({ text: piece.text, line: piece.line, offset: batchText.length });
    batchText += `${piece.text};\n`;
  }
  await flush();
}
