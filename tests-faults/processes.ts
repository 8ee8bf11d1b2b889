/**
 * Process helpers for the fault-injection suite (Linux `/proc`): the engine children under a
 * process, whether a process still runs (a killed child not yet reaped is a zombie), its CPU time
 * and memory high-water mark.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Fields of `/proc/<pid>/stat` after the command name. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** True while `pid` runs (not gone, not a zombie). */
export function isRunning(pid: number): boolean {
  const fields = statFields(pid);
  return fields !== undefined && fields[0] !== 'Z' && fields[0] !== 'X';
}

/** User + system CPU time of `pid` in clock ticks, or `undefined` when it is gone. */
export function cpuTicks(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields === undefined ? undefined : Number(fields[11]) + Number(fields[12]);
}

/** The command line of `pid` (arguments joined by spaces), or '' when it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** Every process id under `root` (children, grandchildren, …). */
export function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const fields = statFields(pid);
    if (fields) parentOf.set(pid, Number(fields[1]));
  }
  const found: number[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const [pid, ppid] of parentOf) {
      if (ppid === parent) {
        found.push(pid);
        frontier.push(pid);
      }
    }
  }
  return found;
}

/** The engine children (sqlite-child processes) under `root`. */
export function engineChildren(root: number): number[] {
  return descendants(root).filter((pid) => commandLine(pid).includes('sqlite-child'));
}

/** Peak resident memory of `pid` so far (`VmHWM`), in bytes, or `undefined` when it is gone. */
export function peakRssBytes(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The files `pid` has open (targets of `/proc/<pid>/fd/*`), sockets and pipes left out. */
export function openFiles(pid: number): string[] {
  const files: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return files;
  }
  for (const entry of entries) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${entry}`);
      if (target.startsWith('/')) files.push(target);
    } catch {
      // closed meanwhile
    }
  }
  return files;
}

/** Polls `condition` every 10 ms until it holds or `ms` pass; resolves to the time it took (or undefined). */
export async function waitFor(condition: () => boolean, ms: number): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started <= ms) {
    if (condition()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return condition() ? Date.now() - started : undefined;
}

/** CPU an engine child may spend starting, in clock ticks (1/100 s): well above the 0.1–0.15 s measured. */
const STARTUP_TICKS = 50;

/** Resolves once an engine child under `root` is busy (its CPU time grows), with its pid. */
export async function busyEngineChild(root: number, ms: number): Promise<number> {
  const started = Date.now();
  const seen = new Map<number, number>();
  while (Date.now() - started < ms) {
    for (const pid of engineChildren(root)) {
      const ticks = cpuTicks(pid);
      if (ticks === undefined) continue;
      const before = seen.get(pid);
      // Past its start-up (a Node start, better-sqlite3 and the watchdog thread: about 0.15 s of
      // CPU; a command line forks its first child before it loads its own modules) and still
      // gaining: the child is running a statement.
      if (before !== undefined && ticks - before >= 10 && ticks >= STARTUP_TICKS) return pid;
      if (before === undefined) seen.set(pid, ticks);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no engine child under ${root} became busy within ${ms} ms (children: ${engineChildren(root).join(', ') || 'none'})`);
}

/** Blocks this thread's event loop, as synchronous grading does. */
export function blockFor(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy
  }
}
