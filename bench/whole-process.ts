/**
 * Whole-process timing for the benches: a command is spawned, timed from spawn to exit, and its
 * process tree's resident memory is sampled; several commands run in turn (A B C A B C …) so that
 * a drift in the machine's speed touches each alike, and ratios are taken round by round.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';

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
  /** Largest sum of VmRSS over the process and its descendants, sampled every 20 ms, in bytes. */
  readonly peakTreeBytes: number;
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
    const started = performance.now();
    const child = spawn(spec.command, [...spec.args], { cwd: spec.cwd, env: spec.env ?? process.env, stdio: [stdin, 'pipe', 'pipe'] });
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
      if (code !== 0 && code !== 1) reject(new Error(`${spec.command} ${spec.args.join(' ')} exited with ${code}: ${stderr}`));
      else resolve({ ms, peakTreeBytes, stdout });
    });
  });
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

/** `load average 1.23 1.10 0.98` (1, 5 and 15 minutes). */
export function loadAverage(): string {
  return `load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}`;
}

/** Rounds to two decimals. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
