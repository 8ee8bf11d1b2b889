/**
 * The parser's answers kept on disk between runs (the parse store). An eval grades the same gold
 * SQL on every run, and with promptfoo's response cache or a replay provider the same predictions
 * too; each parse costs the parser thread a few milliseconds, and the thread itself (a Node
 * environment and sql-parser-cst's 6.5 MB of code) costs its start. A run whose texts are all in
 * the store never starts the thread.
 *
 * - What is kept: the parser thread's answer for one job (parser, options and text: bounded-parse.ts
 *   keys them), when it is a tree or a syntax error. A budget outcome (time, stack, tree depth)
 *   depends on the moment and is never kept. Each answer is kept as `v8.serialize` bytes, the
 *   format a worker thread's answer crosses in, so a stored answer reads back exactly as the
 *   thread's (`undefined` fields included).
 * - Bounds: at most {@link MAX_STORED_PARSES} answers and {@link MAX_STORED_BYTES} bytes; adding one
 *   past either drops the least recently used.
 * - The file is named after the store's format, the tree depth limit and the two parsers'
 *   versions, so an upgrade starts an empty store, never reads another version's trees. It is
 *   read once, on the first lookup, and written when the process exits, only when answers were
 *   added: to a temporary name (`<file>-<pid>-<hex>.tmp`; one whose process is gone is removed by
 *   the next run that reads or writes the store), then renamed, so a concurrent run never reads a torn file (the
 *   last writer wins; two module instances of this file in one process keep a store each). The
 *   file starts with a SHA-256 digest of the rest, so a file changed after it was written (a bad
 *   disk, a cut copy, an edit that still decodes) is never trusted: an unreadable, corrupt or
 *   changed file is an empty store, rewritten by the next run that parses. A folder that cannot be
 *   written costs the next run its parses, nothing else.
 * - Folder: `$TEXT2SQL_LADDER_CACHE_DIR/parses`, else `$XDG_CACHE_HOME/text2sql-ladder/parses`,
 *   else `~/.cache/text2sql-ladder/parses` (the code cache's convention).
 * - Off unless a front end turns it on ({@link enableParseStore}: the promptfoo runtime does; the
 *   command line and the vitest matchers do not), and `TEXT2SQL_LADDER_PARSE_STORE=off` (or `0`,
 *   `false`, `no`) keeps it off: the store is then neither read nor written nor removed.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { scratchName, sweepLeftovers } from '../files/scratch.js';
import { MAX_TREE_DEPTH } from './analysis-budget.js';
import { codeCacheDir } from './code-cache.js';
import { snowflakeParserVersion } from './snowflake-parser.js';

/** Most answers a store keeps. */
export const MAX_STORED_PARSES = 4_096;

/** Most bytes of answers a store keeps (their serialized size). */
export const MAX_STORED_BYTES = 64 * 2 ** 20;

/** Version of the file's layout; part of its name. */
const FORMAT = 2;

/** Bytes of the SHA-256 digest that starts a store file (of the rest of the file). */
const DIGEST_BYTES = 32;

/** Files of other versions untouched this long are removed when a store is written (ms). */
const STALE_FILE_MS = 30 * 24 * 3_600_000;

/**
 * Answers by job key, least recently used first, read from and written to one file. Values are
 * kept serialized (`v8.serialize`) and read back on each {@link ParseStore.get}.
 */
export class ParseStore {
  /** The store's file (absolute). */
  readonly file: string;
  readonly #limits: { readonly entries: number; readonly bytes: number };
  #entries: Map<string, Uint8Array> | undefined;
  #bytes = 0;
  #added = false;

  /**
   * @param file - the file to read and write (absolute); its folder is created on save.
   * @param limits - most answers and bytes kept (defaults {@link MAX_STORED_PARSES},
   *   {@link MAX_STORED_BYTES}).
   */
  constructor(file: string, limits: { readonly entries?: number; readonly bytes?: number } = {}) {
    this.file = file;
    this.#limits = { entries: limits.entries ?? MAX_STORED_PARSES, bytes: limits.bytes ?? MAX_STORED_BYTES };
  }

  /** How many answers the store holds (reads the file on first use). */
  get size(): number {
    return this.#load().size;
  }

  /** The answer kept for `key`, which becomes the most recently used; `undefined` when none is. */
  get(key: string): unknown {
    const entries = this.#load();
    const bytes = entries.get(key);
    if (bytes === undefined) return undefined;
    entries.delete(key);
    entries.set(key, bytes);
    return deserialize(bytes);
  }

  /** Whether an answer is kept for `key` (does not change the order). */
  has(key: string): boolean {
    return this.#load().has(key);
  }

  /**
   * Keeps `value` for `key` as the most recently used answer, dropping the least recently used
   * past the limits. A value larger than the byte limit, or one `v8.serialize` cannot copy
   * (functions, symbols), is not kept. Never throws.
   * @param value - plain data.
   */
  set(key: string, value: unknown): void {
    let bytes: Buffer;
    try {
      bytes = serialize(value);
    } catch {
      return;
    }
    if (bytes.byteLength > this.#limits.bytes) return;
    const entries = this.#load();
    this.#drop(key);
    entries.set(key, bytes);
    this.#bytes += bytes.byteLength;
    this.#added = true;
    while (entries.size > this.#limits.entries || this.#bytes > this.#limits.bytes) {
      this.#drop(entries.keys().next().value!);
    }
  }

  /**
   * Writes the store when answers were added since it was read or written; never throws (a
   * folder that cannot be written leaves the file as it was). Removes temporary files of
   * interrupted writes older than an hour and store files of other versions untouched for 30 days.
   */
  save(): void {
    if (!this.#added || this.#entries === undefined) return;
    this.#added = false;
    let temporary: string | undefined;
    try {
      const dir = path.dirname(this.file);
      mkdirSync(dir, { recursive: true });
      removeStaleFiles(dir, this.file);
      const body = serialize({ format: FORMAT, entries: [...this.#entries] });
      temporary = path.join(dir, `${scratchName(path.basename(this.file))}.tmp`);
      writeFileSync(temporary, Buffer.concat([digestOf(body), body]));
      renameSync(temporary, this.file);
    } catch {
      // No store this time: the next run parses again.
      if (temporary !== undefined) rmSync(temporary, { force: true });
    }
  }

  #drop(key: string): void {
    const old = this.#entries?.get(key);
    if (old === undefined) return;
    this.#entries!.delete(key);
    this.#bytes -= old.byteLength;
  }

  #load(): Map<string, Uint8Array> {
    if (this.#entries !== undefined) return this.#entries;
    this.#entries = new Map();
    // A run that only reads the store still clears what killed runs left beside it.
    sweepLeftovers(path.dirname(this.file), (name) => name.startsWith('parses-') && name.endsWith('.tmp'));
    let stored: unknown;
    try {
      const file = readFileSync(this.file);
      const body = file.subarray(DIGEST_BYTES);
      // A file changed since it was written (a bad disk, a truncated copy, an edit) is not trusted.
      if (file.length <= DIGEST_BYTES || !digestOf(body).equals(file.subarray(0, DIGEST_BYTES))) return this.#entries;
      stored = deserialize(body);
    } catch {
      return this.#entries;
    }
    const { format, entries } = (stored ?? {}) as { format?: unknown; entries?: unknown };
    if (format !== FORMAT || !Array.isArray(entries)) return this.#entries;
    for (const entry of entries as unknown[]) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !(entry[1] instanceof Uint8Array)) continue;
      this.#entries.set(entry[0], entry[1]);
      this.#bytes += entry[1].byteLength;
    }
    // A file written under larger limits is cut down to these (least recently used first).
    while (this.#entries.size > this.#limits.entries || this.#bytes > this.#limits.bytes) this.#drop(this.#entries.keys().next().value!);
    return this.#entries;
  }
}

function digestOf(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}

/**
 * Removes the store files of other versions untouched for 30 days, the temporary files of writes
 * whose process is gone (killed while it wrote: files/scratch.ts), and any temporary file older
 * than an hour.
 */
function removeStaleFiles(dir: string, keep: string): void {
  sweepLeftovers(dir, (name) => name.startsWith('parses-') && name.endsWith('.tmp'));
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (file === keep || !name.startsWith('parses-')) continue;
    try {
      const age = now - statSync(file).mtimeMs;
      if (age > (name.endsWith('.tmp') ? 3_600_000 : STALE_FILE_MS)) rmSync(file, { force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}

/**
 * The store's file for this install, absolute:
 * `<cache>/parses/parses-<format>-depth<MAX_TREE_DEPTH>-sql-parser-cst@<v>-node-sql-parser@<v>.bin`,
 * where `<cache>` is `$TEXT2SQL_LADDER_CACHE_DIR`, else `$XDG_CACHE_HOME/text2sql-ladder`, else
 * `~/.cache/text2sql-ladder`. The depth limit is in the name because the parser thread refuses
 * deeper trees: a store kept under another limit is not read. node-sql-parser (Snowflake) is an
 * optional peer: without it its version reads `none` (no Snowflake answer can be stored then, and
 * installing it starts a new store, as any parser upgrade does). The file holds a SHA-256 digest
 * of the rest, then `v8.serialize({ format, entries: [key, bytes][] })`.
 * @param env - the environment (default: this process's).
 * @param snowflakeParser - gives node-sql-parser's version, `undefined` when it is not installed
 *   (default: reads the installed one's).
 * @throws when sql-parser-cst's `package.json` cannot be read (a dependency: not in a working
 *   install).
 */
export function parseStoreFile(env: NodeJS.ProcessEnv = process.env, snowflakeParser: () => string | undefined = snowflakeParserVersion): string {
  const require = createRequire(import.meta.url);
  const cstVersion = (require('sql-parser-cst/package.json') as { version: string }).version;
  const name = `parses-${FORMAT}-depth${MAX_TREE_DEPTH}-sql-parser-cst@${cstVersion}-node-sql-parser@${snowflakeParser() ?? 'none'}.bin`;
  return path.join(path.dirname(codeCacheDir(env)), 'parses', name);
}

let active: ParseStore | undefined;

/**
 * Whether `TEXT2SQL_LADDER_PARSE_STORE` turns the store off: `off`, `0`, `false` or `no`, in any
 * case and with surrounding spaces. Any other value (or none) leaves it to the front end.
 * @param env - the environment.
 */
export function parseStoreTurnedOff(env: NodeJS.ProcessEnv): boolean {
  const value = env['TEXT2SQL_LADDER_PARSE_STORE']?.trim().toLowerCase();
  return value === 'off' || value === '0' || value === 'false' || value === 'no';
}

/**
 * Turns the parse store on for this process (no-op when it is on, or when the environment turns
 * it off: {@link parseStoreTurnedOff}): from now on the parser thread's answers are looked up in it
 * and added to it, and it is written when the process exits.
 * @param file - the store's file (default {@link parseStoreFile}).
 * @returns the store, or `undefined` when it stays off (turned off, or the default file's name
 *   cannot be made because sql-parser-cst's `package.json` cannot be read). Never throws.
 */
export function enableParseStore(file?: string): ParseStore | undefined {
  if (active !== undefined) return active;
  if (parseStoreTurnedOff(process.env)) return undefined;
  let resolved: string;
  try {
    resolved = file ?? parseStoreFile();
  } catch {
    // sql-parser-cst's package.json cannot be read: no store.
    return undefined;
  }
  const store = new ParseStore(resolved);
  active = store;
  process.once('exit', () => store.save());
  return store;
}

/** The process's parse store when it is on ({@link enableParseStore}), else `undefined`. */
export function activeParseStore(): ParseStore | undefined {
  return active;
}
