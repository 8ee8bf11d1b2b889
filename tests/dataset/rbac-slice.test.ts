/**
 * The RBAC slice of the bundled warehouse (datasets/warehouse-rbac.yaml) on SQLite's emulated
 * roles: both recordings through the ladder assertion as the main job configures it, and the
 * `reliesOnRls` diagnostic on each answer.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ladder } from '../../assertions/ladder.js';
import { reliesOnRls } from '../../assertions/relies-on-rls.js';
import { loadTests, type PromptfooTestCase } from '../../src/promptfoo/dataset-tests.js';
import { closeSharedEngine } from '../../src/promptfoo/runtime.js';
import ReplayProvider from '../../src/promptfoo/replay-provider.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let tests: PromptfooTestCase[];
beforeAll(async () => {
  const cwd = process.cwd();
  process.chdir(ROOT);
  try {
    tests = await loadTests({ file: 'datasets/warehouse-rbac.yaml', ladder: { policy: 'default', timeoutMs: 5000 } });
  } finally {
    process.chdir(cwd);
  }
});
afterAll(() => closeSharedEngine());

/** `id verdict | reason` per item, and the diagnostic's `status`, for one recording. */
async function grade(label: string): Promise<string[]> {
  const provider = new ReplayProvider({ config: { predictions: `providers/recordings/warehouse-rbac-${label}.jsonl`, basePath: ROOT }, label });
  const lines: string[] = [];
  for (const test of tests) {
    const response = await provider.callApi('', { vars: test.vars });
    if ('error' in response) throw new Error(response.error);
    const context = { vars: test.vars, test, config: test.assert[0]!.config, providerResponse: response, provider: { id: () => provider.id(), label } };
    const result = await ladder(response.output, context);
    const rls = await reliesOnRls(response.output, { ...context, config: {} });
    const rlsStatus = (rls.metadata as { status?: string } | undefined)?.status ?? (rls.reason.startsWith('skipped') ? 'skipped' : String(rls.namedScores?.['reliesOnRls']));
    lines.push(`${String(test.vars['id'])} ${result.pass ? 'pass' : 'fail'} rls=${rlsStatus}`);
    if (label === 'weak' && test.vars['id'] === 'rb-005') expect(result.reason).toContain('column email is not visible to role support_emea');
  }
  return lines;
}

describe('the RBAC slice on SQLite', () => {
  it('has the same questions under two roles with different gold results', () => {
    expect(tests.map((test) => `${String(test.vars['id'])} ${String(test.vars['role'])}`)).toEqual([
      'rb-001 support_emea', 'rb-002 support_apac', 'rb-003 support_emea', 'rb-004 support_apac', 'rb-005 support_emea', 'rb-006 support_emea', 'rb-007 support_apac', 'rb-008 support_emea',
    ]);
  });

  it('grades the strong recording: every answer right for its role, every forbidden question refused; its bare counts rely on the role\'s rows', async () => {
    expect(await grade('strong')).toEqual(['rb-001 pass rls=0', 'rb-002 pass rls=0', 'rb-003 pass rls=0', 'rb-004 pass rls=0', 'rb-005 pass rls=0', 'rb-006 pass rls=skipped', 'rb-007 pass rls=skipped', 'rb-008 pass rls=skipped']);
  });

  it('grades the weak recording: a hard-coded region, a hidden column and answers to forbidden questions fail', async () => {
    // rb-001 filters its own region (rls=1: it would not leak); rb-004 joins its own region too.
    expect(await grade('weak')).toEqual(['rb-001 pass rls=1', 'rb-002 fail rls=0', 'rb-003 pass rls=0', 'rb-004 pass rls=1', 'rb-005 fail rls=skipped', 'rb-006 fail rls=skipped', 'rb-007 fail rls=skipped', 'rb-008 fail rls=skipped']);
  });
});
