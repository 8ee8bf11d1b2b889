/**
 * The one reader for files the user names: datasets, run files for `compare` and `audit`,
 * recordings, prediction and gold files, fixture manifests and scripts. Such a file is as
 * untrusted as a model's SQL, so each read is bounded:
 * - it must be a regular file: a FIFO, a device (`/dev/zero`), a socket or a folder is one clear
 *   error naming the path and what it is. The file is opened non-blocking (opening a FIFO never
 *   waits for a writer) and judged by `fstat` of that very descriptor, so a symbolic link is
 *   judged by what it leads to and nothing is read before the check;
 * - at most {@link maxInputBytes} bytes are read (default {@link DEFAULT_MAX_INPUT_BYTES},
 *   `TEXT2SQL_LADDER_MAX_INPUT_BYTES` sets it, a caller may pass its own): a larger file, or one
 *   that grows past the limit while it is read, is one error saying the size, the limit and how to
 *   raise it. Never an unbounded read, a hang, or an abort of the process (`std::bad_alloc`).
 *
 * A database file, which may rightly be larger than any text file, is hashed in chunks
 * ({@link hashUserFile}): the same regular-file rule, memory bounded by one chunk.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { LadderError, type LadderErrorCode } from '../errors.js';

/** Default most bytes read from one input file: 256 MiB. */
export const DEFAULT_MAX_INPUT_BYTES = 256 * 2 ** 20;

/** Environment variable that sets the most bytes read from one input file. */
export const MAX_INPUT_BYTES_ENV = 'TEXT2SQL_LADDER_MAX_INPUT_BYTES';

/**
 * The highest limit accepted: V8's longest string (2^29 − 24 characters), since a text file is
 * read into one string.
 */
export const HIGHEST_MAX_INPUT_BYTES = 2 ** 29 - 24;

/** Options of {@link readUserFile} and {@link readUserText}. */
export interface ReadUserFileOptions {
  /** What the file is, for messages: `run file`, `dataset`, `fixture script`, `recording`. */
  readonly what: string;
  /** Most bytes read; default {@link maxInputBytes}(). */
  readonly maxBytes?: number;
  /** Code of the error thrown; default `input_invalid`. */
  readonly code?: LadderErrorCode;
  /** Text put before the message, e.g. `config.predictions: ` (default none). */
  readonly prefix?: string;
}

/**
 * The most bytes read from one input file: `$TEXT2SQL_LADDER_MAX_INPUT_BYTES` when set (an integer
 * from 1 to {@link HIGHEST_MAX_INPUT_BYTES}), else {@link DEFAULT_MAX_INPUT_BYTES}.
 * @param env - the environment (default this process's).
 * @throws LadderError `invalid_option` for a value that is not such an integer.
 */
export function maxInputBytes(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[MAX_INPUT_BYTES_ENV]?.trim();
  if (text === undefined || text === '') return DEFAULT_MAX_INPUT_BYTES;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1 || value > HIGHEST_MAX_INPUT_BYTES) {
    throw new LadderError('invalid_option', `${MAX_INPUT_BYTES_ENV} must be an integer from 1 to ${HIGHEST_MAX_INPUT_BYTES} (bytes); received ${JSON.stringify(env[MAX_INPUT_BYTES_ENV])}`);
  }
  return value;
}

/** What a non-regular file is, in words. */
export function fileKind(stats: Pick<Stats, 'isDirectory' | 'isFIFO' | 'isCharacterDevice' | 'isBlockDevice' | 'isSocket' | 'isSymbolicLink'>): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** Bytes in words: `1.5 GiB (1610612736 bytes)`. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toFixed(1))} ${units[unit]} (${bytes} bytes)`;
}

/** Flags of every open: read-only, never block on a FIFO, never become a controlling terminal. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Bytes read per `read` call. */
const CHUNK_BYTES = 1 << 20;

function failure(options: ReadUserFileOptions, message: string, cause?: unknown): LadderError {
  return new LadderError(options.code ?? 'input_invalid', `${options.prefix ?? ''}${message}`, cause === undefined ? undefined : { cause });
}

function openFailure(file: string, options: ReadUserFileOptions, error: unknown): LadderError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT' ? 'no such file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ELOOP' ? 'too many symbolic links' : code === 'EISDIR' ? 'it is a folder' : `${code ?? ''} ${(error as Error).message}`.trim();
  return failure(options, `cannot read ${options.what} ${file}: ${why}`, error);
}

function tooLarge(file: string, options: ReadUserFileOptions, limit: number, size: number | undefined): LadderError {
  const how = options.maxBytes === undefined ? `; raise it with ${MAX_INPUT_BYTES_ENV}=<bytes> (at most ${HIGHEST_MAX_INPUT_BYTES})` : '';
  const sizeText = size === undefined ? 'grew past' : `is ${formatBytes(size)}, over`;
  return failure(options, `${options.what} ${file} ${sizeText} the limit of ${formatBytes(limit)} read from one input file${how}`);
}

function checkStats(file: string, options: ReadUserFileOptions, stats: Stats, limit: number): void {
  if (!stats.isFile()) throw failure(options, `cannot read ${options.what} ${file}: it is ${fileKind(stats)}, not a regular file`);
  if (stats.size > limit) throw tooLarge(file, options, limit, stats.size);
}

/**
 * Reads a file the user named, bounded (see the module doc).
 * @param file - the path as the user gave it (named as such in messages).
 * @returns the file's bytes.
 * @throws LadderError (`options.code`, default `input_invalid`) for a missing or unreadable path,
 *   a path that is not a regular file, or a file larger than the limit; `invalid_option` for a
 *   malformed `TEXT2SQL_LADDER_MAX_INPUT_BYTES`.
 */
export function readUserFile(file: string, options: ReadUserFileOptions): Buffer {
  const limit = options.maxBytes ?? maxInputBytes();
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (error) {
    throw openFailure(file, options, error);
  }
  try {
    checkStats(file, options, fstatSync(fd), limit);
    const chunks = new BoundedChunks(file, options, limit);
    for (let chunk = chunks.next(); chunks.took(chunk, readSync(fd, chunk, 0, chunk.length, null)); chunk = chunks.next());
    return chunks.whole();
  } catch (error) {
    if (error instanceof LadderError) throw error;
    throw openFailure(file, options, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * The chunks of one bounded read, shared by the blocking and the non-blocking reader. `next()`
 * gives a buffer of at most {@link CHUNK_BYTES}, sized so the total can reach one byte past the
 * limit: that byte tells a file that grew while it was read (or a /proc file whose size says 0)
 * from one that fits.
 */
class BoundedChunks {
  private readonly chunks: Buffer[] = [];
  private total = 0;

  constructor(
    private readonly file: string,
    private readonly options: ReadUserFileOptions,
    private readonly limit: number,
  ) {}

  next(): Buffer {
    return Buffer.allocUnsafe(Math.min(CHUNK_BYTES, this.limit + 1 - this.total));
  }

  /**
   * Keeps the `read` bytes read into `chunk`; false at the end of the file.
   * @throws LadderError when the total passes the limit.
   */
  took(chunk: Buffer, read: number): boolean {
    if (read === 0) return false;
    this.total += read;
    if (this.total > this.limit) throw tooLarge(this.file, this.options, this.limit, undefined);
    this.chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read));
    return true;
  }

  /** The bytes read, in one buffer. */
  whole(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.total);
  }
}

/** {@link readUserFile} decoded as UTF-8 (a byte-order mark is kept). */
export function readUserText(file: string, options: ReadUserFileOptions): string {
  return readUserFile(file, options).toString('utf8');
}

/** {@link readUserFile} without blocking the event loop. */
export async function readUserFileAsync(file: string, options: ReadUserFileOptions): Promise<Buffer> {
  const limit = options.maxBytes ?? maxInputBytes();
  let handle;
  try {
    handle = await open(file, OPEN_FLAGS);
  } catch (error) {
    throw openFailure(file, options, error);
  }
  try {
    checkStats(file, options, await handle.stat(), limit);
    const chunks = new BoundedChunks(file, options, limit);
    for (let chunk = chunks.next(); chunks.took(chunk, (await handle.read(chunk, 0, chunk.length, null)).bytesRead); chunk = chunks.next());
    return chunks.whole();
  } catch (error) {
    if (error instanceof LadderError) throw error;
    throw openFailure(file, options, error);
  } finally {
    await handle.close();
  }
}

/** {@link readUserFileAsync} decoded as UTF-8. */
export async function readUserTextAsync(file: string, options: ReadUserFileOptions): Promise<string> {
  return (await readUserFileAsync(file, options)).toString('utf8');
}

/**
 * The sha256 (hex) of a file the user named (a database, a prediction file), read in chunks of
 * 1 MiB: any size, memory bounded by one chunk. The file must be a regular file, judged as
 * {@link readUserFile} judges it.
 * @throws LadderError (`options.code`, default `input_invalid`) for a missing or unreadable path,
 *   or a path that is not a regular file.
 */
export function hashUserFile(file: string, options: Omit<ReadUserFileOptions, 'maxBytes'>): string {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (error) {
    throw openFailure(file, options, error);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw failure(options, `cannot read ${options.what} ${file}: it is ${fileKind(stats)}, not a regular file`);
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      hash.update(chunk.subarray(0, read));
    }
    return hash.digest('hex');
  } catch (error) {
    if (error instanceof LadderError) throw error;
    throw openFailure(file, options, error);
  } finally {
    closeSync(fd);
  }
}

/** {@link hashUserFile} without blocking the event loop. */
export async function hashUserFileAsync(file: string, options: Omit<ReadUserFileOptions, 'maxBytes'>): Promise<string> {
  let handle;
  try {
    handle = await open(file, OPEN_FLAGS);
  } catch (error) {
    throw openFailure(file, options, error);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw failure(options, `cannot read ${options.what} ${file}: it is ${fileKind(stats)}, not a regular file`);
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
    }
    return hash.digest('hex');
  } catch (error) {
    if (error instanceof LadderError) throw error;
    throw openFailure(file, options, error);
  } finally {
    await handle.close();
  }
}
