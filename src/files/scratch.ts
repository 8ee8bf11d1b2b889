/**
 * Scratch folders and temporary files: where they live, who owns them, and who removes them.
 *
 * - Where: under the cache folder ({@link cacheRootDir}), never in the system's temp folder, so
 *   one setting (`TEXT2SQL_LADDER_CACHE_DIR`) says where everything the package writes goes.
 * - Who owns one: its name ends in `-<pid>-<8 hex digits>` (a file may add an extension), the
 *   process that made it ({@link scratchName}).
 * - Who removes it: its owner, when it is done, when the process exits, and when the process is
 *   interrupted (SIGINT, SIGTERM, SIGHUP: {@link ownScratch} removes what it owns, then lets the
 *   signal end the process as it would have). A process killed by SIGKILL runs no handler: the
 *   next process that makes scratch in the same folder removes what a dead process left
 *   ({@link sweepLeftovers}); an entry whose pid is alive is kept unless it is older than a day
 *   (a pid reused by another program).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Environment variable naming the package's cache folder. */
export const CACHE_DIR_ENV = 'TEXT2SQL_LADDER_CACHE_DIR';

/** An entry older than this is a leftover even when its pid runs (a pid reused), in ms. */
export const LEFTOVER_AGE_MS = 24 * 3_600_000;

/**
 * The package's cache folder: `$TEXT2SQL_LADDER_CACHE_DIR` when set, else
 * `$XDG_CACHE_HOME/text2sql-ladder`, else `~/.cache/text2sql-ladder`; absolute.
 * @param env - the environment (default this process's).
 */
export function cacheRootDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env[CACHE_DIR_ENV];
  if (explicit !== undefined && explicit.trim() !== '') return path.resolve(explicit);
  const xdg = env['XDG_CACHE_HOME'];
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
  return path.join(base, 'text2sql-ladder');
}

/** The folder of short-lived scratch (L5's search databases): `<cache folder>/tmp`. */
export function scratchRootDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRootDir(env), 'tmp');
}

/** `<prefix>-<pid>-<8 hex>`: a name this process owns. */
export function scratchName(prefix: string): string {
  return `${prefix}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

const OWNER = /-(\d+)-[0-9a-f]{8}(?:\.[A-Za-z0-9.]+)?$/;

/** The pid that owns a scratch name, or `undefined` when the name is not one. */
export function scratchOwner(name: string): number | undefined {
  const match = OWNER.exec(name);
  const pid = match === null ? NaN : Number(match[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** True while a process with this pid exists (one we may not signal counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes from `dir` the scratch entries (names {@link scratchName} made, filtered by `accept`)
 * whose owner is gone, or that are older than {@link LEFTOVER_AGE_MS}; this process's own are
 * kept. Never throws: an entry another process removes first, or a folder that cannot be read or
 * written, is left as it is.
 * @returns the names removed.
 */
export function sweepLeftovers(dir: string, accept: (name: string) => boolean = () => true): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = scratchOwner(name);
    if (pid === undefined || !accept(name)) continue;
    const entry = path.join(dir, name);
    let old: boolean;
    try {
      old = Date.now() - statSync(entry).mtimeMs > LEFTOVER_AGE_MS;
    } catch {
      continue;
    }
    if (!old && (pid === process.pid || processAlive(pid))) continue;
    try {
      rmSync(entry, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Read-only or removed meanwhile: left as it is.
    }
  }
  return removed;
}

/** Paths this process owns and removes at exit or on an interrupt, each with what to stop first. */
const owned = new Map<string, (() => void) | undefined>();
const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let listening = false;

function removeOwned(): void {
  for (const [entry, stopWriter] of owned) {
    try {
      stopWriter?.();
      // A writer just stopped may still be closing its files: a few short retries.
      rmSync(entry, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
    } catch {
      // Nothing more can be done at exit.
    }
  }
  owned.clear();
}

/**
 * On an interrupt: remove what this process owns; then, when no one else listens for the signal,
 * stop listening and send it again, so the process ends by it as it would have without us (exit
 * status 128 + n). With other listeners (promptfoo's, the Spider command's), they decide; the
 * exit handler removes anything made after this.
 */
function onInterrupt(signal: NodeJS.Signals): void {
  removeOwned();
  if (process.listenerCount(signal) > 1) return;
  stopListening();
  process.kill(process.pid, signal);
}

function startListening(): void {
  if (listening) return;
  listening = true;
  process.on('exit', removeOwned);
  for (const signal of INTERRUPTS) process.on(signal, onInterrupt);
}

function stopListening(): void {
  if (!listening) return;
  listening = false;
  process.removeListener('exit', removeOwned);
  for (const signal of INTERRUPTS) process.removeListener(signal, onInterrupt);
}

/**
 * Marks `entry` (a folder or a file) as this process's scratch: removed at exit and on SIGINT,
 * SIGTERM or SIGHUP. The listeners are there only while something is owned, so a process with no
 * scratch keeps the signals' default behaviour.
 * @param stopWriter - called first (e.g. kills the child process that writes there).
 * @returns the function that gives it up (call it once the entry is removed or kept for good).
 */
export function ownScratch(entry: string, stopWriter?: () => void): () => void {
  owned.set(entry, stopWriter);
  startListening();
  return () => {
    owned.delete(entry);
    if (owned.size === 0) stopListening();
  };
}

/** A scratch folder owned by this process (see {@link createScratchFolder}). */
export interface ScratchFolder {
  /** Its absolute path. */
  readonly path: string;
  /** Removes it and gives it up; idempotent, never throws. */
  remove(): void;
}

/**
 * Makes a scratch folder `<parent>/<prefix>-<pid>-<8 hex>` (creating `parent`), after removing the
 * leftovers of dead processes with the same prefix from `parent`, and owns it ({@link ownScratch}).
 * @throws the file system's error when `parent` cannot be created or written.
 */
export function createScratchFolder(parent: string, prefix: string): ScratchFolder {
  mkdirSync(parent, { recursive: true });
  sweepLeftovers(parent, (name) => name.startsWith(`${prefix}-`));
  const folder = path.join(parent, scratchName(prefix));
  mkdirSync(folder);
  const release = ownScratch(folder);
  let removed = false;
  return {
    path: folder,
    remove() {
      if (removed) return;
      removed = true;
      try {
        rmSync(folder, { recursive: true, force: true });
      } catch {
        // Swept by a later process.
      }
      release();
    },
  };
}
