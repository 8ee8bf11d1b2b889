/**
 * Browser test (npm run test:browser; not part of npm test): runs the main job into a fresh
 * promptfoo data folder, starts `promptfoo view` on it, opens the viewer in headless Debian
 * Chromium through playwright-core (no browser download) and checks the VALUES of every rung number
 * in every column header ("<metric>\n<pct>% (<sum>/<count>)") against the ladder summary the run
 * wrote (LADDER_SUMMARY_JSON): each rung's header is the summary's "of all items" figure, and
 * `end_to_end` its end-to-end figure. Two runs: the main job (strong / weak: L6 applies to 56 vs 22
 * rows) and a prompt A/B on one provider (tests-browser/prompt-ab.promptfooconfig.yaml), where the
 * two columns reach the rungs on different numbers of rows.
 *
 * Runs under node:test (`node --import tsx --test`), so it needs no vitest config of its own.
 * Env: CHROMIUM (default /usr/bin/chromium), CONFIG (default promptfooconfig.yaml), VIEW_PORT
 * (default 15517, so it never collides with `npm run view` on 15500).
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';

const run = promisify(execFile);
const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
const CONFIG = process.env['CONFIG'] ?? 'promptfooconfig.yaml';
const PORT = Number(process.env['VIEW_PORT'] ?? 15517);
const AB_CONFIG = 'tests-browser/prompt-ab.promptfooconfig.yaml';

/** One summary column as LADDER_SUMMARY_JSON holds it (the fields read here). */
interface SummaryColumn {
  readonly provider: string;
  readonly endToEnd: { readonly passed: number; readonly n: number };
  readonly rungs: ReadonlyArray<{ readonly name: string; readonly n: number; readonly ofAll: { readonly passed: number; readonly n: number } }>;
}

interface Run {
  readonly evalId: string;
  readonly summary: readonly SummaryColumn[];
}

const work = mkdtempSync(path.join(tmpdir(), 'ladder-browser-'));
const dataDir = path.join(work, '.promptfoo');
let server: ChildProcess | undefined;
let browser: BrowserContext | undefined;
const runs: Record<string, Run> = {};

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`promptfoo view did not answer ${url} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

before(async () => {
  for (const [name, config] of [['main', CONFIG], ['prompt A/B', AB_CONFIG]] as const) {
    const output = path.join(work, `${name === 'main' ? 'eval' : 'ab'}.json`);
    const summaryFile = output.replace(/\.json$/, '-summary.json');
    await run('bash', ['scripts/eval.sh'], { env: { ...process.env, CONFIG: config, OUTPUT: output, LADDER_SUMMARY_JSON: summaryFile, PROMPTFOO_CONFIG_DIR: dataDir }, maxBuffer: 1 << 26 });
    runs[name] = {
      evalId: (JSON.parse(readFileSync(output, 'utf8')) as { evalId: string }).evalId,
      summary: JSON.parse(readFileSync(summaryFile, 'utf8')) as SummaryColumn[],
    };
  }
  // Its own process group, so that `after` ends the server and nothing else.
  server = spawn('bash', ['scripts/view.sh'], { env: { ...process.env, PORT: String(PORT), PROMPTFOO_CONFIG_DIR: dataDir }, detached: true, stdio: 'ignore' });
  await waitForHealth(`http://127.0.0.1:${PORT}/health`, 60_000);
  browser = await chromium.launchPersistentContext(path.join(work, 'chromium-profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  if (server?.pid !== undefined) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  rmSync(work, { recursive: true, force: true });
});

/** The column headers' custom metrics, in column order: metric → "<sum>/<count>". */
async function headerMetrics(evalId: string): Promise<Array<Record<string, string>>> {
  const page = await browser!.newPage();
  await page.goto(`http://localhost:${PORT}/eval/${evalId}`, { waitUntil: 'networkidle', timeout: 120_000 });
  await page.getByText('L4_execution').first().waitFor({ timeout: 120_000 });
  const text = await page.locator('body').innerText();
  await page.close();
  // Each column header: "<n>% passing (…)", then its custom metrics as "<metric>\n<pct>% (<sum>/<count>)", up to "Requests:".
  const headers = [...text.matchAll(/[\d.]+% passing[\s\S]*?Requests:/g)].map((match) => match[0]);
  return headers.map((header) => Object.fromEntries([...header.matchAll(/\n(L\d_\w+|end_to_end)\n[\d.]+% \((\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)\)/g)].map((m) => [m[1]!, `${Number(m[2])}/${Number(m[3])}`])));
}

/** What every header must read, from the summary: each rung's "of all items" figure and end_to_end. */
function expectedHeaders(summary: readonly SummaryColumn[]): Array<Record<string, string>> {
  return summary.map((column) => ({
    ...Object.fromEntries(column.rungs.map((rung) => [rung.name, `${rung.ofAll.passed}/${rung.ofAll.n}`])),
    end_to_end: `${column.endToEnd.passed}/${column.endToEnd.n}`,
  }));
}

for (const name of ['main', 'prompt A/B']) {
  test(`${name}: every rung number in every column header equals the summary's`, { timeout: 300_000 }, async () => {
    const { evalId, summary } = runs[name]!;
    assert.ok(summary.length >= 2, `${name}: the summary has ${summary.length} columns`);
    assert.deepEqual(await headerMetrics(evalId), expectedHeaders(summary));
  });
}

test('the two runs reach the rungs on different numbers of rows per column (the case the header got wrong)', () => {
  const reached = (run: Run, rung: string) => run.summary.map((column) => column.rungs.find((entry) => entry.name === rung));
  const [strong, weak] = reached(runs['main']!, 'L6_efficiency');
  assert.deepEqual([strong?.n, weak?.n], [56, 22]);
  const [a, b] = reached(runs['prompt A/B']!, 'L4_execution');
  assert.deepEqual([a?.n, b?.n, a?.ofAll.n, b?.ofAll.n], [15, 0, 15, 15]);
});
