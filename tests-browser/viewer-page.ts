/**
 * What the viewer tests share: waiting for `promptfoo view`, headless Debian Chromium through
 * playwright-core (no browser download), and reading the rung numbers of each column header
 * ("<metric>\n<pct>% (<sum>/<count>)") to compare with the ladder summary a run wrote
 * (LADDER_SUMMARY_JSON): each rung's header is the summary's "of all items" figure, and
 * `end_to_end` its end-to-end figure.
 */
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';

/** Chromium's executable (env CHROMIUM, default /usr/bin/chromium). */
export const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';

/** One summary column as LADDER_SUMMARY_JSON holds it (the fields read here). */
export interface SummaryColumn {
  readonly provider: string;
  readonly endToEnd: { readonly passed: number; readonly n: number };
  readonly rungs: ReadonlyArray<{ readonly name: string; readonly n: number; readonly ofAll: { readonly passed: number; readonly n: number } }>;
}

/** Resolves once `url` answers 2xx; rejects after `timeoutMs` ms. */
export async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
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

/** Headless Chromium with its profile in `profileDir`, nothing fetched from the network on its own. */
export function launchBrowser(profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The column headers' custom metrics of eval `evalId` in the viewer on `port`, in column order: metric → "<sum>/<count>". */
export async function headerMetrics(browser: BrowserContext, port: number, evalId: string): Promise<Array<Record<string, string>>> {
  const page = await browser.newPage();
  await page.goto(`http://localhost:${port}/eval/${evalId}`, { waitUntil: 'networkidle', timeout: 120_000 });
  await page.getByText('L4_execution').first().waitFor({ timeout: 120_000 });
  const text = await page.locator('body').innerText();
  await page.close();
  // Each column header: "<n>% passing (…)", then its custom metrics as "<metric>\n<pct>% (<sum>/<count>)", up to "Requests:".
  const headers = [...text.matchAll(/[\d.]+% passing[\s\S]*?Requests:/g)].map((match) => match[0]);
  return headers.map((header) => Object.fromEntries([...header.matchAll(/\n(L\d_\w+|end_to_end)\n[\d.]+% \((\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)\)/g)].map((m) => [m[1]!, `${Number(m[2])}/${Number(m[3])}`])));
}

/** What every header must read, from the summary: each rung's "of all items" figure and end_to_end. */
export function expectedHeaders(summary: readonly SummaryColumn[]): Array<Record<string, string>> {
  return summary.map((column) => ({
    ...Object.fromEntries(column.rungs.map((rung) => [rung.name, `${rung.ofAll.passed}/${rung.ofAll.n}`])),
    end_to_end: `${column.endToEnd.passed}/${column.endToEnd.n}`,
  }));
}
