/**
 * Hand-written promptfoo result files whose rows carry the equivalence judge's record, for the
 * review queue's tests: only the slice of a row the queue reads (the test's vars and source, the
 * provider's output, the ladder record with its execution rung and judge entry) and the run
 * identity's dataset digest.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { PROMPTFOO_RUNS_FORMAT } from '../../src/report/promptfoo-run-identity.js';
import { RUN_IDENTITY_FORMAT } from '../../src/report/run-identity.js';
import type { JudgeRecord } from '../../src/report/ladder-record.js';

/** One judged row. */
export interface JudgedRow {
  readonly item: string;
  readonly question: string;
  readonly golds: readonly string[];
  readonly candidate: string;
  /** `file:line` of the item. */
  readonly source: string;
  readonly state: NonNullable<JudgeRecord['state']>;
  readonly outcome?: JudgeRecord['outcome'];
  readonly calibrated?: boolean;
  readonly differences?: readonly string[];
  readonly route?: JudgeRecord['route'];
  /** L4's per-snapshot verdict lines (snapshot → reason), all "no match" unless `emptyMatch`. */
  readonly verdicts?: Readonly<Record<string, string>>;
  readonly emptyMatch?: boolean;
}

/** The judge entry of a row, as the judge step writes it. */
export function judgeEntry(row: JudgedRow): JudgeRecord {
  return {
    judge: 'openai:chat:gpt-4.1-mini',
    verdict: row.state === 'pass' ? 'pass' : 'fail',
    score: row.calibrated === false ? null : 0,
    reason: `judge: ${row.state}`,
    task: 'equivalence',
    state: row.state,
    outcome: row.outcome ?? (row.state === 'uncalibrated' ? 'review' : (row.state as JudgeRecord['outcome'])),
    route: row.route ?? (row.emptyMatch === true ? 'possible_lucky_match' : 'ex_failure'),
    asked: true,
    model: 'gpt-4.1-mini',
    promptVersion: 'equivalence-v1',
    promptHash: '0'.repeat(64),
    differences: row.differences ?? [],
    equivalent: row.state === 'review',
    witnessOverruled: false,
    calibrated: row.calibrated ?? true,
    calls: 1,
    cached: false,
    tokens: 900,
  };
}

function promptfooRow(row: JudgedRow, promptIdx: number, label: string): unknown {
  const snapshots = Object.entries(row.verdicts ?? {}).map(([snapshot, reason]) => ({ snapshot, verdict: { match: row.emptyMatch === true, reason } }));
  const [file] = row.source.split(/:(?=\d+$)/);
  return {
    promptIdx,
    provider: { id: 'file://dist/providers/replay.js', label },
    testCase: { vars: { id: row.item, question: row.question, db: 'warehouse', gold_sql: [...row.golds] }, metadata: { id: row.item, source: row.source, file } },
    response: { output: row.candidate },
    gradingResult: {
      metadata: {
        text2sqlLadder: {
          kind: 'ladder',
          version: 1,
          id: row.item,
          verdict: row.emptyMatch === true ? 'pass' : 'fail',
          endToEnd: row.emptyMatch === true ? 1 : 0,
          expectedBehavior: 'answer',
          output: 'sql',
          reason: 'L4 execution',
          snapshots: Object.keys(row.verdicts ?? {}),
          rungs: [{ kind: 'rung', rung: 'execution', status: row.emptyMatch === true ? 'pass' : 'fail', score: row.emptyMatch === true ? 1 : 0, reason: 'results differ', issues: [], details: { goldIndex: 0, snapshots } }],
          statuses: {},
          probes: { checked: 0, refused: 0 },
          executed: true,
          goldError: false,
          emptyGoldMatch: row.emptyMatch === true,
          judge: judgeEntry(row),
        },
      },
    },
  };
}

/**
 * Writes a promptfoo result file with one column per label (the same rows in each) and a run
 * identity recording `datasetFile`'s digest as it is now.
 */
export function writeJudgedRun(file: string, rows: readonly JudgedRow[], datasetFile: string, labels: readonly string[] = ['strong']): void {
  const hash = `sha256:${createHash('sha256').update(readFileSync(datasetFile)).digest('hex')}`;
  const identity = (label: string): unknown => ({
    format: RUN_IDENTITY_FORMAT,
    tool: { name: 'text2sql-ladder', version: '0.2.0' },
    source: 'promptfoo',
    recordedAt: '2026-12-06T09:00:00.000Z',
    dataset: { contentHash: 'sha256:00', items: rows.length, files: [{ path: datasetFile, hash }] },
    snapshots: [],
    policies: [],
    prompt: null,
    provider: { label, id: 'file://dist/providers/replay.js', model: null, settings: {} },
    asOfDates: [],
    settings: {},
  });
  const result = {
    results: {
      prompts: labels.map((label) => ({ provider: label, label: 'text2sql' })),
      results: labels.flatMap((label, index) => rows.map((row) => promptfooRow(row, index, label))),
    },
    config: { metadata: { text2sqlLadder: { format: PROMPTFOO_RUNS_FORMAT, columns: labels.map((label, index) => ({ promptIdx: index, provider: label, identity: identity(label) })) } } },
  };
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
}
