/**
 * Runs that share state, and a fixture cache that cannot be trusted:
 * - two `npm run eval` at once on one promptfoo state: one refuses clearly, the other keeps every
 *   row (before: both printed "84 passed / 58 failed" and the output held 55–67 of 142 rows);
 * - a cached snapshot truncated between two runs is rebuilt by the next run, never served;
 * - a read-only or full cache folder is one `fixture_cache` line naming the folder (needs
 *   `unshare -rm` to mount a small tmpfs; skipped, and said so, where that is not allowed).
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');
let work: string;

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'ladder-faults-runs-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Finished {
  readonly code: number;
  readonly stderr: string;
  readonly output: string;
}

async function evalRun(state: string, output: string): Promise<Finished> {
  try {
    const { stderr } = await run('bash', ['scripts/eval.sh'], { cwd: ROOT, env: { ...process.env, PROMPTFOO_CONFIG_DIR: state, OUTPUT: output }, maxBuffer: 1 << 26 });
    return { code: 0, stderr, output };
  } catch (error) {
    const failed = error as { code?: number; stderr?: string };
    return { code: failed.code ?? -1, stderr: failed.stderr ?? '', output };
  }
}

describe('two npm run eval at once on one promptfoo state', () => {
  it('one refuses with a clear message, the other keeps every row', async () => {
    const state = path.join(work, '.promptfoo-shared');
    const results = await Promise.all([evalRun(state, path.join(work, 'a.json')), evalRun(state, path.join(work, 'b.json'))]);
    const refused = results.filter((result) => result.code === 1);
    const completed = results.filter((result) => result.code === 0);
    expect(results.map((result) => result.code).sort()).toEqual([0, 1]);
    expect(refused[0]!.stderr).toContain(`npm run eval: another run is using the promptfoo state ${state}`);
    expect(refused[0]!.stderr).toContain('PROMPTFOO_CONFIG_DIR=<folder> OUTPUT=<file.json> npm run eval');
    const rows = (JSON.parse(readFileSync(completed[0]!.output, 'utf8')) as { results: { results: { testIdx: number; promptIdx: number }[] } }).results.results;
    const items = new Set(rows.map((row) => row.testIdx)).size;
    const columns = new Set(rows.map((row) => row.promptIdx)).size;
    process.stdout.write(`\nconcurrent eval: one refused; the other wrote ${rows.length} rows (${items} items × ${columns} columns)\n`);
    expect(columns).toBe(2);
    expect(rows).toHaveLength(items * columns);
    expect(completed[0]!.stderr).not.toContain('incomplete run');
  });
});

function resolveIn(cacheDir: string): { status: number | null; stdout: string; stderr: string } {
  const registry = path.join(ROOT, 'src/fixtures/registry.ts');
  const script = `const { resolveFixture } = await import(${JSON.stringify(registry)});
    try { const r = await resolveFixture('warehouse', { cacheDir: ${JSON.stringify(cacheDir)} }); console.log(JSON.stringify(r.snapshots)); }
    catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
}

describe('the fixture cache between runs', () => {
  it('rebuilds a cached snapshot that was truncated after the last run', () => {
    const cacheDir = path.join(work, 'cache');
    const first = JSON.parse(resolveIn(cacheDir).stdout) as { name: string; path: string; checksum: string }[];
    const base = first[0]!;
    truncateSync(base.path, 8192);
    const second = JSON.parse(resolveIn(cacheDir).stdout) as { path: string; checksum: string }[];
    expect(second).toEqual(first);
    expect(createHash('sha256').update(readFileSync(base.path)).digest('hex')).toBe(base.checksum);
  });
});

/** Runs `command` as root of a fresh user and mount namespace, or returns undefined when not allowed. */
function inMountNamespace(command: string): { status: number | null; stdout: string; stderr: string } | undefined {
  const probe = spawnSync('unshare', ['-rm', 'true'], { encoding: 'utf8' });
  if (probe.status !== 0) return undefined;
  return spawnSync('unshare', ['-rm', 'sh', '-c', command], { cwd: ROOT, encoding: 'utf8' });
}

describe('a cache folder that cannot be written', () => {
  const registry = path.join(ROOT, 'src/fixtures/registry.ts');
  const resolveScript = (cacheDir: string): string =>
    `${process.execPath} --import tsx --input-type=module -e "const { resolveFixture } = await import('${registry}'); try { await resolveFixture('warehouse', { cacheDir: '${cacheDir}' }); console.log('built'); } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }"`;

  it.each([
    ['read-only', 'mount -t tmpfs -o size=8m tmpfs "$D" && mount -o remount,ro "$D"', 'is on a read-only file system (EROFS'],
    ['full', 'mount -t tmpfs -o size=256k tmpfs "$D"', 'is full ('],
  ])('%s: one fixture_cache line naming the folder', (label, mount, expected) => {
    const mountPoint = path.join(work, `mnt-${label}`);
    mkdirSync(mountPoint, { recursive: true });
    const cacheDir = path.join(mountPoint, 'cache');
    const result = inMountNamespace(`D=${JSON.stringify(mountPoint)}; ${mount} && ${resolveScript(cacheDir)}`);
    if (result === undefined) {
      process.stdout.write(`\ncache folder ${label}: skipped, unshare -rm is not allowed here\n`);
      return;
    }
    const reported = JSON.parse(result.stdout.trim().split('\n').pop()!) as { code: string; message: string };
    process.stdout.write(`\ncache folder ${label}: ${reported.message}\n`);
    expect(reported.code).toBe('fixture_cache');
    expect(reported.message).toContain(`cannot build fixture warehouse: the cache folder ${cacheDir} ${expected}`);
    expect(reported.message).not.toContain('\n');
  });
});
