import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { calibrationFailures, findPassingCalibration, readCalibrationRecord, readCalibrationThresholds, type CalibrationRecord, type JudgeIdentity } from '../../src/judge/calibration-record.js';
import { judgeStatistics } from '../../src/judge/judge-statistics.js';

const JUDGE: JudgeIdentity = { task: 'equivalence', provider: 'openai:chat:gpt-4.1', model: 'gpt-4.1', promptVersion: 'equivalence-v1', promptHash: 'a'.repeat(64) };

function record(counts: { tp: number; fn: number; fp: number; tn: number }, judge: JudgeIdentity = JUDGE): CalibrationRecord {
  const statistics = judgeStatistics(counts);
  const failures = calibrationFailures(statistics);
  return {
    kind: 'judge-calibration',
    version: 1,
    judge,
    labels: { file: 'pairs.jsonl', sha256: 'b'.repeat(64), pairs: statistics.n, positives: statistics.positives, negatives: statistics.negatives },
    createdAt: '2026-01-01T00:00:00.000Z',
    thresholds: { minTpr: 0.9, minTnr: 0.9, minPairs: 100, minNegatives: 30 },
    statistics,
    categories: {},
    errors: 0,
    passed: failures.length === 0,
    failures,
    cost: { calls: statistics.n, cacheHits: 0, tokens: 0 },
    wrong: [],
  };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'calibration-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('findPassingCalibration', () => {
  it('finds a passing record for the exact judge in a folder, passing over other JSON files', () => {
    writeFileSync(join(dir, 'other.json'), '{"kind": "something-else"}');
    writeFileSync(join(dir, 'judge.json'), JSON.stringify(record({ tp: 72, fn: 8, fp: 2, tn: 38 })));
    const found = findPassingCalibration(JUDGE, [dir]);
    expect(found.file).toBe(join(dir, 'judge.json'));
    expect(found.record?.statistics.tpr.value).toBe(0.9);
  });

  it('does not count a record of another prompt hash, model or provider', () => {
    writeFileSync(join(dir, 'judge.json'), JSON.stringify(record({ tp: 72, fn: 8, fp: 2, tn: 38 })));
    for (const other of [{ ...JUDGE, promptHash: 'c'.repeat(64) }, { ...JUDGE, model: 'gpt-4o' }, { ...JUDGE, provider: 'anthropic:messages:claude' }]) {
      const found = findPassingCalibration(other, [dir]);
      expect(found.record).toBeUndefined();
      expect(found.reason).toMatch(/^no calibration record for the equivalence judge .*run `text2sql-ladder judge calibrate`$/);
    }
  });

  it('re-checks the figures against the thresholds asked for now', () => {
    const file = join(dir, 'judge.json');
    writeFileSync(file, JSON.stringify(record({ tp: 72, fn: 8, fp: 2, tn: 38 })));
    const strict = readCalibrationThresholds({ minTpr: 0.95 });
    const found = findPassingCalibration(JUDGE, [file], strict);
    expect(found.record).toBeUndefined();
    expect(found.reason).toBe(`no passing calibration for the equivalence judge openai:chat:gpt-4.1 (model gpt-4.1, prompt equivalence-v1 aaaaaaaaaaaa): ${file}: TPR 0.900 < 0.95`);
  });

  it('fails a record with too few negative pairs', () => {
    expect(calibrationFailures(judgeStatistics({ tp: 90, fn: 0, fp: 0, tn: 20 }))).toEqual(['20 negative pairs, fewer than 30']);
  });

  it('names the file and the field of a malformed record', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ kind: 'judge-calibration', version: 1, judge: { task: 'equivalence' } }));
    expect(() => readCalibrationRecord(file)).toThrow(`${file}: not a calibration record: "judge.provider" must be a string`);
    expect(() => readCalibrationThresholds({ minTpr: 2 })).toThrow('calibration thresholds.minTpr must be a number in [0, 1]; received 2');
    expect(() => readCalibrationThresholds({ minTrp: 0.9 })).toThrow(/unknown field "minTrp"/);
  });

  it('passes over missing paths', () => {
    expect(findPassingCalibration(JUDGE, [join(dir, 'none')]).record).toBeUndefined();
  });
});
