import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { flattenTags, ladderAssertionRef, loadTests } from '../../src/promptfoo/dataset-tests.js';
import { warmLadderRuntime } from '../../src/promptfoo/warm-up.js';

// The warm-up forks an engine child: recorded here instead (its effect is tested in warm-up.test.ts).
vi.mock('../../src/promptfoo/warm-up.js', () => ({ warmLadderRuntime: vi.fn() }));

const dir = mkdtempSync(path.join(tmpdir(), 'pf-tests-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'items.yaml');
writeFileSync(
  file,
  `- id: q1
  question: How many orders?
  db: warehouse
  snapshots: [base, edge]
  as_of_date: "2025-07-01"
  gold_sql: [SELECT COUNT(*) FROM orders, SELECT COUNT(*) FROM v_order_revenue]
  tags: { difficulty: easy, trap: [fan_out, ties], empty_gold: true }
- id: q2
  question: Which year?
  db: warehouse
  expected_behavior: clarify
- id: q3
  question: Broken
  db: warehouse
  expected_behavour: answer
`,
);

afterEach(() => vi.restoreAllMocks());

describe('loadTests', () => {
  it('turns each valid item into one test with vars, metadata, no var expansion and the ladder assertion', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const tests = await loadTests({ file, strict: false, ladder: { policy: 'spider' } });
    expect(tests.map((test) => test.description)).toEqual(['q1: How many orders?', 'q2: Which year?']);
    expect(tests[0]).toEqual({
      description: 'q1: How many orders?',
      vars: {
        id: 'q1',
        question: 'How many orders?',
        db: 'warehouse',
        snapshots: ['base', 'edge'],
        as_of_date: '2025-07-01',
        gold_sql: ['SELECT COUNT(*) FROM orders', 'SELECT COUNT(*) FROM v_order_revenue'],
        expected_behavior: 'answer',
        gold_tables: [],
      },
      metadata: {
        difficulty: 'easy',
        trap: 'fan_out,ties',
        empty_gold: true,
        id: 'q1',
        source: `${file}:1`,
        expected_behavior: 'answer',
        scored: true,
        tags: ['difficulty:easy', 'trap:fan_out', 'trap:ties', 'empty_gold'],
      },
      options: { disableVarExpansion: true },
      assert: [{ type: 'javascript', value: ladderAssertionRef(), config: { policy: 'spider' } }],
    });
    expect(tests[1]?.vars).toMatchObject({ expected_behavior: 'clarify', gold_sql: [] });
    expect(stderr).toHaveBeenCalledTimes(1);
    expect(String(stderr.mock.calls[0]?.[0])).toMatch(/^text2sql-ladder: skipped invalid item: .*items\.yaml:15: item "q3": .*expected_behavour/);
  });

  it('the ladder reference points at the assertion file next to the generator', () => {
    expect(ladderAssertionRef()).toBe(`file://${path.resolve('assertions/ladder.ts')}:ladder`);
  });

  it.each([
    [undefined, /needs a config object with `file`/],
    [{ file: '' }, /^tests: loadTests: config\.file must be the path of a dataset file; received a string \(""\)$/],
    [{ file, filter: 'x' }, /^tests: loadTests: config\.filter is not an option \(did you mean config\.file\?\); known options: file, ladder, assert, ids, strict, fixturesDir, cacheDir$/],
    [{ file, ids: 'wh-001' }, /^tests: loadTests: config\.ids must be a list of item ids; received a string \("wh-001"\)$/],
    [{ file, strict: false, ids: ['q9'] }, /config\.ids names items not in .*items\.yaml: q9/],
  ])('misuse %j throws naming the option', async (config, message) => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await expect(loadTests(config as never)).rejects.toThrow(message);
  });

  it('by default (strict) invalid items throw with file:line', async () => {
    await expect(loadTests({ file })).rejects.toMatchObject({ code: 'dataset_invalid', message: expect.stringMatching(/items\.yaml:15: item "q3"/) });
  });

  it('keeps only the requested ids, with a custom assertion list', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const tests = await loadTests({ file, strict: false, ids: ['q2'], assert: [{ type: 'javascript', value: 'file://x.ts:y' }] });
    expect(tests.map((test) => [test.vars['id'], test.assert])).toEqual([['q2', [{ type: 'javascript', value: 'file://x.ts:y' }]]]);
  });
});

describe('loadTests: warm-up', () => {
  it('starts the ladder\'s engine child, parser thread and assertion module when its tests carry the ladder assertion, and not for other assertions', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    vi.mocked(warmLadderRuntime).mockClear();
    await loadTests({ file, strict: false, ids: ['q2'], assert: [{ type: 'javascript', value: 'file://x.ts:y' }] });
    await loadTests({ file, strict: false, ids: ['q1'] });
    await vi.waitFor(() => expect(warmLadderRuntime).toHaveBeenCalledTimes(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(warmLadderRuntime).toHaveBeenCalledTimes(1);
    // The module promptfoo will import for `ladderAssertionRef()` (here the source, from the tests).
    expect(warmLadderRuntime).toHaveBeenCalledWith(path.resolve('assertions/ladder.ts'));
  });
});

describe('flattenTags', () => {
  it('drops false, keeps true as the bare key', () => {
    expect(flattenTags({ a: false, b: true, c: 3 })).toEqual(['b', 'c:3']);
  });
});
