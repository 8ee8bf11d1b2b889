/**
 * vitest global setup: every test of the run writes its temporary files under one private folder,
 * and a test that leaves anything behind fails the run.
 *
 * Before the workers start, a folder `text2sql-ladder-tests-*` is made in the system temp folder
 * and `TMPDIR` points at it, so `os.tmpdir()` in the tests (and in the processes they start)
 * resolves there. At the end of the run the folder is listed: any entry but tsx's own compile
 * cache (`tsx-<uid>`, written by the `tsx` child processes some tests start) is a test that did
 * not clean up, and the run fails naming it. The folder is then removed whatever it holds, so the
 * system temp folder is left as it was, even after a crashed test.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Entries of the private folder that are not a test's leftovers: caches of tools the tests start. */
const TOOL_CACHES = /^tsx-\d+$/;

export default function setup(): () => void {
  const root = mkdtempSync(path.join(os.tmpdir(), 'text2sql-ladder-tests-'));
  const previous = process.env['TMPDIR'];
  process.env['TMPDIR'] = root;
  return () => {
    if (previous === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = previous;
    let left: string[] = [];
    try {
      left = readdirSync(root).filter((name) => !TOOL_CACHES.test(name)).sort();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    if (left.length > 0) {
      // vitest reports a throw here but still exits 0: the exit code is set as well.
      process.exitCode = 1;
      throw new Error(`tests left ${left.length} ${left.length === 1 ? 'entry' : 'entries'} in the temp folder (removed now; make the test that writes it remove it): ${left.join(', ')}`);
    }
  };
}
