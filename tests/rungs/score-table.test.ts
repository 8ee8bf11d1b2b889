/**
 * The score table (src/rungs/scores.ts) is the one list of rungs and scores: nothing else in the
 * sources writes a score name, a rung label or a list of rung ids by hand, every entry names files
 * that exist, and docs/development.md's "Adding a rung" agrees with the table.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertions } from '../../assertions/index.js';
import { END_TO_END, GATE_IDS, LADDER_RUNG_IDS, LADDER_SCORE_NAMES, OPTIONAL_RUNG_IDS, SCORE_IDS, SCORE_NAME_ORDER, SCORES, assertionFileOf, scoreLabelOf, scoreNameOf, type AssertionName } from '../../src/rungs/scores.js';
import { ladderScoreNames } from '../../src/promptfoo/ladder-result.js';
import { sortMetricNames } from '../../src/report/run-record.js';
import { formatVerdict } from '../../matchers/message.js';
import { createRungResult } from '../../src/rungs/rung-result.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The folders of shipped and tool code (tests and docs may name scores as they please). */
const SOURCE_FOLDERS = ['src', 'assertions', 'matchers', 'extensions', 'providers', 'datasets', 'bin', 'bench', 'scripts'];
const TABLE_FILE = 'src/rungs/scores.ts';

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (/\.(ts|mts|mjs)$/.test(entry.name)) files.push(relative.split(path.sep).join('/'));
    }
  };
  for (const folder of SOURCE_FOLDERS) if (existsSync(path.join(ROOT, folder))) walk(folder);
  return files.sort();
}

/** Code lines of a file, comments dropped (a doc comment may show a score name as an example). */
function codeLines(file: string): Array<{ line: number; text: string }> {
  const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '));
  return text.split('\n').flatMap((line, index) => {
    const code = line.replace(/(^|[^:'"`])\/\/.*$/, '$1');
    return code.trim() === '' ? [] : [{ line: index + 1, text: code }];
  });
}

/** Places outside the table that write a score name, a label, or a list of three or more rung ids, as quoted text. */
function handWrittenLists(): string[] {
  const names = SCORE_IDS.filter((id) => SCORES[id].role !== 'diagnostic').map((id) => SCORES[id].scoreName);
  const labels = LADDER_RUNG_IDS.map((id) => SCORES[id].label);
  const quoted = (word: string): RegExp => new RegExp(`['"\`]${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"\`]`);
  const ids = [...LADDER_RUNG_IDS, ...SCORE_IDS.filter((id) => SCORES[id].role === 'diagnostic')];
  const found: string[] = [];
  for (const file of sourceFiles()) {
    if (file === TABLE_FILE) continue;
    for (const { line, text } of codeLines(file)) {
      const where = `${file}:${line}`;
      for (const word of [...names, ...labels]) if (quoted(word).test(text)) found.push(`${where}: ${word}`);
      const listed = ids.filter((id) => quoted(id).test(text));
      if (listed.length >= 3 && /\[/.test(text)) found.push(`${where}: a list of rung ids (${listed.join(', ')})`);
    }
  }
  return found;
}

describe('the score table is the one list of rungs and scores', () => {
  it('no source outside src/rungs/scores.ts writes a score name, a rung label or a list of rung ids by hand', () => {
    expect(handWrittenLists()).toEqual([]);
  });

  it('the check finds a list written again (it read the files it should)', () => {
    expect(sourceFiles()).toEqual(expect.arrayContaining(['src/rungs/ladder.ts', 'assertions/ladder.ts', 'matchers/message.ts', 'src/report/ladder-summary.ts', 'bench/semantic-main-job.bench.ts']));
    const written = ["const ORDER = ['L1_syntax', 'L2_schema'];", "const IDS = ['syntax', 'schema', 'safety'];", "label = 'L7 answer grounding';"];
    const quoted = (word: string): RegExp => new RegExp(`['"\`]${word}['"\`]`);
    expect(written.map((text) => [...LADDER_RUNG_IDS.map((id) => SCORES[id].scoreName), ...LADDER_RUNG_IDS.map((id) => SCORES[id].label)].some((word) => quoted(word).test(text)) || LADDER_RUNG_IDS.filter((id) => quoted(id).test(text)).length >= 3)).toEqual([true, true, true]);
  });

  it('derives the lists: ids in ladder order, gates first, score names, labels, display order, optional rungs', () => {
    expect(LADDER_RUNG_IDS).toEqual(['syntax', 'schema', 'safety', 'execution', 'semantic', 'efficiency', 'answer']);
    expect(GATE_IDS).toEqual(LADDER_RUNG_IDS.filter((id) => SCORES[id].role === 'gate'));
    expect(LADDER_SCORE_NAMES).toEqual({ syntax: 'L1_syntax', schema: 'L2_schema', safety: 'L3_safety', execution: 'L4_execution', semantic: 'L5_semantic', efficiency: 'L6_efficiency', answer: 'L7_answer' });
    expect(SCORE_NAME_ORDER).toEqual([END_TO_END, ...LADDER_RUNG_IDS.map(scoreNameOf)]);
    expect(OPTIONAL_RUNG_IDS).toEqual(['semantic', 'efficiency', 'answer']);
    expect(LADDER_RUNG_IDS.map((id) => SCORES[id].step)).toEqual(['L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'L7']);
    // Every front end reads them from the table.
    expect(ladderScoreNames({ efficiency: true })).toEqual(['L1_syntax', 'L2_schema', 'L3_safety', 'L4_execution', 'L6_efficiency']);
    expect(sortMetricNames(['components', 'L7_answer', 'L1_syntax', END_TO_END, 'L5_semantic'])).toEqual([END_TO_END, 'L1_syntax', 'L5_semantic', 'L7_answer', 'components']);
    expect(formatVerdict(createRungResult({ rung: 'answer', status: 'fail', reason: 'x', details: null }))).toBe(`${scoreLabelOf('answer')} failed: x`);
    expect(scoreNameOf('later_rung')).toBe('later_rung');
  });

  it('every entry names a source that exists and an assertion the assertion table holds', () => {
    for (const id of SCORE_IDS) expect(existsSync(path.join(ROOT, SCORES[id].source)), `${id}: ${SCORES[id].source}`).toBe(true);
    const named = SCORE_IDS.flatMap((id) => (SCORES[id].assertion === null ? [] : [SCORES[id].assertion as AssertionName]));
    expect(Object.keys(assertions).sort()).toEqual([...new Set(named)].sort());
    for (const name of named) expect(existsSync(path.join(ROOT, assertionFileOf(name).replace(/:.*$/, ''))), name).toBe(true);
    for (const id of SCORE_IDS) for (const read of SCORES[id].reads) expect(SCORE_IDS, `${id} reads ${read}`).toContain(read);
  });
});

describe('docs/development.md, "Adding a rung"', () => {
  const page = readFileSync(path.join(ROOT, 'docs', 'development.md'), 'utf8');
  const section = page.slice(page.indexOf('## Adding a rung'), page.indexOf('\n## ', page.indexOf('## Adding a rung') + 1));

  it('lists every rung of the table, with its step, score name, source and assertion', () => {
    const rows = LADDER_RUNG_IDS.map((id) => {
      const entry = SCORES[id];
      return `| ${entry.step} | \`${id}\` | \`${entry.scoreName}\` | \`${entry.source}\` | ${entry.assertion === null ? '—' : `\`${assertionFileOf(entry.assertion)}\``} |`;
    });
    const listed = section.split('\n').filter((line) => /^\| L\d /.test(line));
    expect(listed).toEqual(rows);
  });

  it('names the files adding a rung touches, and each exists', () => {
    const files = ['src/rungs/scores.ts', 'src/rungs/ladder-rungs.ts', 'src/promptfoo/config.ts', 'assertions/index.ts', 'tests/rungs/score-table.test.ts', 'tests/assertions/ladder-equivalence.test.ts'];
    for (const file of files) {
      expect(section, file).toContain(`\`${file}\``);
      expect(existsSync(path.join(ROOT, file)), file).toBe(true);
    }
  });
});
