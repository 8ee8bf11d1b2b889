/**
 * Whole-process timing for the benches: a command is spawned, timed from spawn to exit, and its
 * process tree's resident memory is sampled; several commands run in turn (A B C A B C …) so that
 * a drift in the machine's speed touches each alike, and ratios are taken round by round.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

/**
 * GNU time, when installed: it reports the user and system CPU of the process and of every
 * descendant it waited for (the engine's children are reaped by the CLI before it exits).
 */
const GNU_TIME = '/usr/bin/time';
const cpuAccounting = existsSync(GNU_TIME);

/** One command to time. */
export interface ProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** A file to give the process as its stdin (default: none). */
  readonly stdinFile?: string;
}

/** One finished run. */
export interface ProcessRun {
  /** Wall milliseconds from spawn to exit. */
  readonly ms: number;
  /**
   * Largest sum of VmRSS over the process and its descendants, sampled every 20 ms, in bytes
   * (with GNU time wrapping the process for {@link ProcessRun.cpuMs}, its own 1–2 MiB count too).
   */
  readonly peakTreeBytes: number;
  /**
   * User + system CPU milliseconds of the process and its reaped descendants, from the operating
   * system's accounting (GNU time); undefined where `/usr/bin/time` is missing.
   */
  readonly cpuMs: number | undefined;
  readonly stdout: string;
}

/** Sum of VmRSS (bytes) over `pid` and its descendants (Linux /proc; 0 elsewhere). */
export function treeRssBytes(pid: number): number {
  let total = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const current = stack.pop()!;
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${current}/status`, 'utf8'));
      if (kb) total += Number(kb[1]) * 1024;
      for (const task of readdirSync(`/proc/${current}/task`)) {
        const children = readFileSync(`/proc/${current}/task/${task}/children`, 'utf8').trim();
        if (children !== '') stack.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // The process ended between two reads.
    }
  }
  return total;
}

/**
 * Runs `spec` once.
 * @throws Error when the process cannot start or exits with a status other than 0 or 1.
 */
export function timeProcess(spec: ProcessSpec): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const stdin = spec.stdinFile === undefined ? 'ignore' : openSync(spec.stdinFile, 'r');
    const accounting = cpuAccounting ? mkdtempSync(path.join(os.tmpdir(), 'ladder-cpu-')) : undefined;
    const cpuFile = accounting === undefined ? undefined : path.join(accounting, 'cpu');
    const [command, args] =
      cpuFile === undefined ? [spec.command, [...spec.args]] : [GNU_TIME, ['-f', '%U %S', '-o', cpuFile, spec.command, ...spec.args]];
    const started = performance.now();
    const child = spawn(command, args, { cwd: spec.cwd, env: spec.env ?? process.env, stdio: [stdin, 'pipe', 'pipe'] });
    if (typeof stdin === 'number') closeSync(stdin);
    let stdout = '';
    let stderr = '';
    let peakTreeBytes = 0;
    const sampler = setInterval(() => {
      if (child.pid !== undefined) peakTreeBytes = Math.max(peakTreeBytes, treeRssBytes(child.pid));
    }, 20);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      clearInterval(sampler);
      const cpuMs = cpuFile === undefined ? undefined : readCpuMs(cpuFile);
      if (accounting !== undefined) rmSync(accounting, { recursive: true, force: true });
      if (code !== 0 && code !== 1) reject(new Error(`${spec.command} ${spec.args.join(' ')} exited with ${code}: ${stderr}`));
      else resolve({ ms, peakTreeBytes, cpuMs, stdout });
    });
  });
}

/** User + system milliseconds from GNU time's `%U %S` line (the last line: earlier ones are its notes); undefined when unreadable. */
function readCpuMs(file: string): number | undefined {
  try {
    const last = readFileSync(file, 'utf8').trim().split('\n').pop() ?? '';
    const [user, system] = last.split(' ').map(Number);
    return user === undefined || system === undefined || Number.isNaN(user) || Number.isNaN(system) ? undefined : Math.round((user + system) * 1000);
  } catch {
    return undefined;
  }
}

/**
 * Runs every spec `runs` times in turn after one warm-up round (not counted).
 * @returns the counted runs per name, in round order.
 */
export async function alternate<Name extends string>(specs: Readonly<Record<Name, ProcessSpec>>, runs: number): Promise<Record<Name, ProcessRun[]>> {
  const names = Object.keys(specs) as Name[];
  const out = Object.fromEntries(names.map((name) => [name, [] as ProcessRun[]])) as Record<Name, ProcessRun[]>;
  for (let round = -1; round < runs; round += 1) {
    for (const name of names) {
      const run = await timeProcess(specs[name]);
      if (round >= 0) out[name].push(run);
    }
  }
  return out;
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Median of the round-by-round ratios `a[i] / b[i]` of wall times. */
export function pairedRatio(a: readonly ProcessRun[], b: readonly ProcessRun[]): number {
  return median(a.map((run, i) => run.ms / b[i]!.ms));
}

/** Median of the round-by-round ratios of CPU milliseconds; undefined when either side has no CPU figure. */
export function pairedCpuRatio(a: readonly ProcessRun[], b: readonly ProcessRun[]): number | undefined {
  const ratios = a.map((run, i) => (run.cpuMs === undefined || b[i]?.cpuMs === undefined || b[i]!.cpuMs === 0 ? undefined : run.cpuMs / b[i]!.cpuMs!));
  return ratios.some((ratio) => ratio === undefined) ? undefined : median(ratios as number[]);
}

/** Median CPU milliseconds of the runs; undefined when any run has no CPU figure. */
export function medianCpuMs(runs: readonly ProcessRun[]): number | undefined {
  return runs.some((run) => run.cpuMs === undefined) ? undefined : Math.round(median(runs.map((run) => run.cpuMs!)));
}

/** `load average 1.23 1.10 0.98` (1, 5 and 15 minutes). */
export function loadAverage(): string {
  return `load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}`;
}

/** Rounds to two decimals. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
