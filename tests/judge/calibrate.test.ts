import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLabelledPairs, type LabelledPair } from '../../src/dataset/labelled-pairs.js';
import { judgeFromFunction } from '../../src/judge/equivalence/ask-judge.js';
import { calibrateEquivalenceJudge } from '../../src/judge/equivalence/calibrate.js';
import { EQUIVALENCE_PROMPT_HASH } from '../../src/judge/equivalence/equivalence-prompt.js';
import { findPassingCalibration } from '../../src/judge/calibration-record.js';
import { equivalenceJudgeIdentity } from '../../src/judge/equivalence/judge-step.js';
import { renderCalibration } from '../../src/judge/render-calibration.js';
import { pairKey, scriptedJudge, seededChoice } from './scripted-judge.js';

const CORPUS = path.resolve(import.meta.dirname, '../semantic/equivalence-corpus/pairs.jsonl');

/** Pairs of the corpus with a distinct (gold, candidate), so a prompt names one pair. */
function distinctPairs(): LabelledPair[] {
  const seen = new Set<string>();
  return readLabelledPairs(CORPUS).filter((pair) => {
    const key = pairKey(pair.gold, pair.candidate);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

let cache: string;
beforeEach(() => {
  cache = mkdtempSync(path.join(tmpdir(), 'judge-cache-'));
});
afterEach(() => {
  rmSync(cache, { recursive: true, force: true });
});

describe('calibrateEquivalenceJudge with a scripted judge of known error rates', () => {
  const all = distinctPairs();
  const equivalent = seededChoice(all.filter((pair) => pair.label === 'equivalent'), 80, 'calibration-equivalent');
  const different = seededChoice(all.filter((pair) => pair.label === 'not_equivalent'), 40, 'calibration-not-equivalent');
  const pairs = [...equivalent, ...different];
  const wrongOn = new Set([...seededChoice(equivalent, 8, 'wrong-equivalent'), ...seededChoice(different, 2, 'wrong-not-equivalent')].map((pair) => pair.id));

  it('wrong on 8 of 80 equivalent and 2 of 40 non-equivalent pairs reads TPR 0.900 and TNR 0.950, and passes', async () => {
    const calls: string[] = [];
    const judge = judgeFromFunction(scriptedJudge(pairs, { wrongOn, calls }), { id: 'scripted', model: 'scripted-v1' });
    const run = await calibrateEquivalenceJudge({ judge, pairs, labels: { file: 'pairs.jsonl', bytes: 'x' }, cache, now: () => new Date('2026-01-01T00:00:00Z') });
    const { record } = run;
    expect(record.statistics.counts).toEqual({ tp: 72, fn: 8, fp: 2, tn: 38 });
    expect(record.statistics.tpr.value!.toFixed(3)).toBe('0.900');
    expect(record.statistics.tnr.value!.toFixed(3)).toBe('0.950');
    expect(record.passed).toBe(true);
    expect(record.failures).toEqual([]);
    expect([...record.wrong].sort()).toEqual([...wrongOn].sort());
    expect(record.judge).toEqual({ task: 'equivalence', provider: 'scripted', model: 'scripted-v1', promptVersion: 'equivalence-v1', promptHash: EQUIVALENCE_PROMPT_HASH });
    expect(record.cost).toEqual({ calls: 120, cacheHits: 0, tokens: 1200 });
    expect(calls).toHaveLength(120);
    const categories = Object.values(record.categories);
    expect(categories.reduce((sum, figures) => sum + figures.pairs, 0)).toBe(120);
    expect(categories.reduce((sum, figures) => sum + figures.correct, 0)).toBe(110);
    // The report shows the figures and the intervals.
    const text = renderCalibration(record);
    expect(text).toContain('calibration: PASS');
    expect(text).toMatch(/TPR \(sensitivity\)[\s│]+0\.900[\s│]+72\/80[\s│]+\[0\.815, 0\.948\]/);
    expect(text).toMatch(/TNR \(specificity\)[\s│]+0\.950[\s│]+38\/40[\s│]+\[0\.835, 0\.986\]/);
  });

  it('asks nothing the second time: every answer comes from the cache', async () => {
    const judge = judgeFromFunction(scriptedJudge(pairs, { wrongOn }), { id: 'scripted', model: 'scripted-v1' });
    await calibrateEquivalenceJudge({ judge, pairs, labels: { file: 'pairs.jsonl', bytes: 'x' }, cache });
    const calls: string[] = [];
    const again = judgeFromFunction(scriptedJudge(pairs, { wrongOn, calls }), { id: 'scripted', model: 'scripted-v1' });
    const run = await calibrateEquivalenceJudge({ judge: again, pairs, labels: { file: 'pairs.jsonl', bytes: 'x' }, cache });
    expect(calls).toEqual([]);
    expect(run.record.cost).toEqual({ calls: 0, cacheHits: 120, tokens: 0 });
    expect(run.record.statistics.counts).toEqual({ tp: 72, fn: 8, fp: 2, tn: 38 });
  });

  it('fails a judge that leans to "equivalent" (wrong on 6 of 40 non-equivalent: TNR 0.850) and names why', async () => {
    const leaning = new Set(seededChoice(different, 6, 'lean').map((pair) => pair.id));
    const judge = judgeFromFunction(scriptedJudge(pairs, { wrongOn: leaning }), { id: 'leaning', model: 'm' });
    const { record } = await calibrateEquivalenceJudge({ judge, pairs, labels: { file: 'pairs.jsonl', bytes: 'x' }, cache: false });
    expect(record.statistics.tnr.value!.toFixed(3)).toBe('0.850');
    expect(record.statistics.bias.difference).toBeCloseTo(6 / 120, 12);
    expect(record.passed).toBe(false);
    expect(record.failures).toEqual(['TNR 0.850 < 0.9']);
  });

  it('retries a malformed reply once, then counts a judge_error as a wrong answer', async () => {
    const [once, always] = [equivalent[0]!, different[0]!];
    const calls: string[] = [];
    const judge = judgeFromFunction(scriptedJudge(pairs, { malformed: new Map([[once.id, 'once'], [always.id, 'always']]), calls }), { id: 'flaky', model: 'm' });
    const { record, answers } = await calibrateEquivalenceJudge({ judge, pairs, labels: { file: 'pairs.jsonl', bytes: 'x' }, cache: false });
    expect(calls.filter((id) => id === once.id)).toHaveLength(2);
    expect(calls.filter((id) => id === always.id)).toHaveLength(2);
    expect(record.errors).toBe(1);
    expect(record.statistics.counts).toEqual({ tp: 80, fn: 0, fp: 1, tn: 39 });
    expect(answers.find((answer) => answer.pair.id === always.id)?.error).toBe('no JSON object in the reply: "I think they are the same."');
    expect(record.cost.calls).toBe(122);
  });

  it('writes a record findPassingCalibration accepts for that exact judge only', async () => {
    const judge = judgeFromFunction(scriptedJudge(pairs, { wrongOn }), { id: 'scripted', model: 'scripted-v1' });
    const { record } = await calibrateEquivalenceJudge({ judge, pairs, labels: { file: 'pairs.jsonl', bytes: 'x' }, cache: false });
    const file = path.join(cache, 'calibration.json');
    (await import('node:fs')).writeFileSync(file, JSON.stringify(record));
    expect(findPassingCalibration(equivalenceJudgeIdentity(judge), [file]).record?.statistics.n).toBe(120);
    expect(findPassingCalibration(equivalenceJudgeIdentity({ id: 'scripted', model: 'other' }), [file]).record).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8')).kind).toBe('judge-calibration');
  });
});
