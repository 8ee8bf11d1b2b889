import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isLadderError } from '../../src/errors.js';
import { loadDataset } from '../../src/dataset/load.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ladder-dataset-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
function file(extension: string, lines: string[]): string {
  counter += 1;
  const target = path.join(dir, `d${counter}${extension}`);
  writeFileSync(target, `${lines.join('\n')}\n`);
  return target;
}

const GOOD = ['  - id: ok-1', '    question: How many orders?', '    db: warehouse', '    gold_sql: SELECT COUNT(*) FROM orders'];

describe('loadDataset: YAML', () => {
  it('loads a full record and normalizes one gold to a list', async () => {
    const f = file('.yaml', [
      '- id: sql-0142',
      '  question: "What was net revenue by region last quarter?"',
      '  db: warehouse',
      '  snapshots: [base, edge]',
      '  role: finance',
      '  as_of_date: "2025-10-01"',
      '  gold_sql: SELECT 1',
      '  gold_result_ordered: false',
      '  gold_tables: [fct_revenue]',
      '  tags: {difficulty: medium, needs_business_definition: net_revenue, trap: [fan_out, ties], weight: 2, reviewed: true}',
      '  expected_behavior: answer',
      '  notes: "Fiscal quarter, not calendar."',
    ]);
    const { items, errors } = await loadDataset(f);
    expect(errors).toEqual([]);
    expect(items).toEqual([
      {
        id: 'sql-0142',
        question: 'What was net revenue by region last quarter?',
        db: 'warehouse',
        snapshots: ['base', 'edge'],
        role: 'finance',
        as_of_date: '2025-10-01',
        gold_sql: ['SELECT 1'],
        gold_result_ordered: false,
        gold_tables: ['fct_revenue'],
        tags: { difficulty: 'medium', needs_business_definition: 'net_revenue', trap: ['fan_out', 'ties'], weight: 2, reviewed: true },
        expected_behavior: 'answer',
        notes: 'Fiscal quarter, not calendar.',
        scored: true,
        source: { file: f, line: 1, goldLines: [7], fieldLines: { db: 3, snapshots: 4, role: 5 } },
      },
    ]);
  });

  it('records the line of each gold: the gold_sql line for one, each entry for a list', async () => {
    const f = file('.yaml', [
      '- id: one',
      '  question: One?',
      '  db: warehouse',
      '  gold_sql: SELECT 1',
      '- id: two',
      '  question: Two?',
      '  db: warehouse',
      '  gold_sql:',
      '    - SELECT 1',
      '    - |',
      '      SELECT 2',
    ]);
    const { items } = await loadDataset(f);
    expect(items.map((item) => item.source)).toEqual([
      { file: f, line: 1, goldLines: [4], fieldLines: { db: 3 } },
      { file: f, line: 5, goldLines: [9, 10], fieldLines: { db: 7 } },
    ]);
  });

  it('applies defaults under items, item fields winning, and keeps several golds', async () => {
    const f = file('.yaml', [
      'description: test',
      'defaults:',
      '  db: warehouse',
      '  tags: {domain: sales}',
      'items:',
      '  - id: a',
      '    question: Q?',
      '    gold_sql: [SELECT 1, SELECT 1.0]',
      '  - id: b',
      '    question: Q2?',
      '    db: other',
      '    tags: {domain: hr}',
      '    expected_behavior: clarify',
    ]);
    const { items, errors } = await loadDataset(f);
    expect(errors).toEqual([]);
    expect(items.map((i) => [i.id, i.db, i.tags, i.gold_sql, i.expected_behavior, i.scored, i.source.line, i.source.fieldLines])).toEqual([
      // The inherited db is located on its defaults line; an item's own on its own line.
      ['a', 'warehouse', { domain: 'sales' }, ['SELECT 1', 'SELECT 1.0'], 'answer', true, 6, { db: 3 }],
      ['b', 'other', { domain: 'hr' }, [], 'clarify', true, 9, { db: 11 }],
    ]);
  });

  it("an item's db_path replaces the defaults' db (and its db the defaults' db_path): the item's own choice wins", async () => {
    writeFileSync(path.join(dir, 'own.sqlite'), '');
    const f = file('.yaml', [
      'defaults:',
      '  db: warehouse',
      'items:',
      '  - id: fixture',
      '    question: Q?',
      '  - id: own-file',
      '    question: Q2?',
      '    db_path: own.sqlite',
    ]);
    const { items, errors } = await loadDataset(f);
    expect(errors).toEqual([]);
    expect(items.map((i) => [i.id, i.db, i.db_path])).toEqual([
      ['fixture', 'warehouse', undefined],
      ['own-file', 'own.sqlite', [path.join(dir, 'own.sqlite')]],
    ]);
    const g = file('.yaml', ['defaults:', '  db_path: own.sqlite', 'items:', '  - id: named', '    question: Q?', '    db: warehouse']);
    const named = await loadDataset(g);
    expect([named.errors, named.items.map((i) => [i.db, i.db_path])]).toEqual([[], [['warehouse', undefined]]]);
  });

  it('loads an answer item without gold as unscored', async () => {
    const f = file('.yaml', ['- id: pending', '  question: Median order value?', '  db: warehouse']);
    const { items, errors } = await loadDataset(f);
    expect(errors).toEqual([]);
    expect(items[0]?.scored).toBe(false);
    expect(items[0]?.gold_sql).toEqual([]);
  });

  it.each([
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    gold_sq: SELECT 1'], 4, 'item "bad": gold_sq is not a field (did you mean gold_sql?); known fields: id, question, db, db_path, snapshots, role, as_of_date, gold_sql, gold_result_ordered, gold_tables, tags, expected_behavior, notes'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    colour: red'], 4, 'item "bad": colour is not a field; known fields: id, question, db, db_path, snapshots, role, as_of_date, gold_sql, gold_result_ordered, gold_tables, tags, expected_behavior, notes'],
    [['  - id: bad', '    db: warehouse'], 1, 'item "bad": missing required field question'],
    [['  - id: bad', '    question: ""', '    db: warehouse'], 2, 'item "bad": question must be a non-empty string; received a string ("")'],
    [['  - id: 42', '    question: Q?', '    db: warehouse'], 1, 'item (no id): id must be a non-empty string; received a number (42)'],
    [['  - question: Q?', '    db: warehouse'], 1, 'item (no id): id must be a non-empty string; received undefined'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    as_of_date: "2025-02-30"'], 4, 'item "bad": as_of_date must be a date "YYYY-MM-DD" (quote it in YAML); received a string ("2025-02-30")'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    as_of_date: 2025/10/01'], 4, 'item "bad": as_of_date must be a date "YYYY-MM-DD" (quote it in YAML); received a string ("2025/10/01")'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    gold_sql: [SELECT 1, 7]'], 4, 'item "bad": gold_sql[1] must be a non-empty SQL string; received a number (7)'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    gold_sql: {a: 1}'], 4, 'item "bad": gold_sql must be a SQL string or a list of them; received an object'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    gold_sql: "  "'], 4, 'item "bad": gold_sql must not be an empty string; leave it out for an unscored item'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    gold_result_ordered: "yes"'], 4, 'item "bad": gold_result_ordered must be true or false; received a string ("yes")'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    expected_behavior: decline'], 4, 'item "bad": expected_behavior must be one of answer, clarify, refuse; received a string ("decline")'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    expected_behavior: refuse', '    gold_sql: SELECT 1'], 5, 'item "bad": a refuse item must not have gold_sql: it passes by declining and never executes'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    snapshots: []'], 4, 'item "bad": snapshots must be a non-empty list of names; received an array ([])'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    snapshots: [base, base]'], 4, 'item "bad": snapshots lists "base" twice'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    gold_tables: orders'], 4, 'item "bad": gold_tables must be a list of names; received a string ("orders")'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    tags: [easy, join]'], 4, 'item "bad": tags must be a mapping such as {difficulty: easy, category: join}; received an array (["easy","join"])'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    tags: {difficulty: {level: 1}}'], 4, 'item "bad": tag difficulty must be a string, number, boolean or list of strings; received an object'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    role: [a]'], 4, 'item "bad": role must be a non-empty string; received an array (["a"])'],
    [['  - id: bad', '    question: Q?', '    db: warehouse', '    notes: 5'], 4, 'item "bad": notes must be a string; received a number (5)'],
    [['  - just a string'], 1, 'item (no id): a dataset item must be a mapping of fields; received a string ("just a string")'],
  ])('reports %j at its line and still loads the other item', async (bad, badLine, message) => {
    const lines = ['items:', ...GOOD, ...bad];
    const f = file('.yaml', lines);
    const { items, errors } = await loadDataset(f);
    expect(items.map((i) => i.id)).toEqual(['ok-1']);
    const line = GOOD.length + 1 + badLine;
    expect(errors.map((e) => e.message)).toEqual([`${f}:${line}: ${message}`]);
    expect(errors[0]?.line).toBe(line);
  });

  it('reports every problem of one item, each at its own line', async () => {
    const f = file('.yaml', ['- id: multi', '  question: Q?', '  db: warehouse', '  gold_result_ordered: 1', '  expected_behavior: maybe']);
    const { errors } = await loadDataset(f);
    expect(errors.map((e) => [e.line, e.id, e.field])).toEqual([
      [4, 'multi', 'gold_result_ordered'],
      [5, 'multi', 'expected_behavior'],
    ]);
  });

  it('flags a duplicate id at its second use and keeps the first', async () => {
    const f = file('.yaml', ['- id: twin', '  question: First?', '  db: warehouse', '- id: twin', '  question: Second?', '  db: warehouse']);
    const { items, errors } = await loadDataset(f);
    expect(items.map((i) => i.question)).toEqual(['First?']);
    expect(errors.map((e) => e.message)).toEqual([`${f}:4: item "twin": duplicate id "twin": already used by the item at line 1; this one is skipped`]);
  });

  it('reports a YAML error inside one item and loads the others', async () => {
    const f = file('.yaml', [...GOOD.map((l) => l.slice(2)), '- id: broken', '  question: Q?', '  question: again', '  db: warehouse', '- id: ok-2', '  question: Fine?', '  db: warehouse']);
    const { items, errors } = await loadDataset(f);
    expect(items.map((i) => i.id)).toEqual(['ok-1', 'ok-2']);
    expect(errors.map((e) => e.message)).toEqual([`${f}:7: item "broken": YAML: Map keys must be unique`]);
  });

  it('reports unknown top-level keys and a wrong defaults value', async () => {
    const f = file('.yaml', ['item: []', 'defaults: [db]', 'items:', ...GOOD]);
    const { items, errors } = await loadDataset(f);
    expect(items).toHaveLength(1);
    expect(errors.map((e) => e.message)).toEqual([
      `${f}:1: unknown top-level key "item"; a dataset file holds description, defaults, items or is a list of items`,
      `${f}:2: defaults must be a mapping of fields shared by every item`,
    ]);
  });

  it('names a field given by defaults at the defaults line', async () => {
    const f = file('.yaml', ['defaults:', '  db: 7', 'items:', '  - id: x', '    question: Q?']);
    const { errors } = await loadDataset(f);
    expect(errors.map((e) => e.message)).toEqual([`${f}:2: item "x": db must be a non-empty string; received a number (7)`]);
  });

  it('loads an empty file as no items', async () => {
    expect(await loadDataset(file('.yaml', ['# nothing yet']))).toEqual({ items: [], errors: [] });
  });
});

describe('loadDataset: JSON read as YAML', () => {
  it('loads a .json array with line numbers', async () => {
    const f = file('.json', ['[', '  {"id": "a", "question": "Q?", "db": "warehouse"},', '  {"id": "b", "question": "Q?", "db": 3}', ']']);
    const { items, errors } = await loadDataset(f);
    expect(items.map((i) => [i.id, i.source.line, i.scored])).toEqual([['a', 2, false]]);
    expect(errors.map((e) => e.message)).toEqual([`${f}:3: item "b": db must be a non-empty string; received a number (3)`]);
  });
});

describe('loadDataset: JSONL', () => {
  it('loads one item per line, skips blank lines, and reports bad lines by number', async () => {
    const f = file('.jsonl', [
      '{"id": "j1", "question": "Q?", "db": "warehouse", "gold_sql": "SELECT 1"}',
      '',
      '{"id": "j2", "question": "Q?", "db": "warehouse", "gold_sql": "SELECT 1"',
      '{"id": "j3", "question": "Q?", "db": "warehouse", "expected_behavior": "refuse"}',
      '{"id": "j4", "question": 5, "db": "warehouse"}',
      '[1, 2]',
    ]);
    const { items, errors } = await loadDataset(f);
    expect(errors[0]?.message.startsWith(`${f}:3: `)).toBe(true);
    expect(items.map((i) => [i.id, i.source.line, i.expected_behavior])).toEqual([
      ['j1', 1, 'answer'],
      ['j3', 4, 'refuse'],
    ]);
    // V8's JSON message text varies between Node versions after "position 72".
    expect(errors[0]?.message).toMatch(/: item "j2": invalid JSON: Expected ',' or '}' after property value in JSON at position 72/);
    expect(errors.slice(1).map((e) => e.message)).toEqual([
      `${f}:5: item "j4": question must be a non-empty string; received a number (5)`,
      `${f}:6: item (no id): a dataset item must be a mapping of fields; received an array ([1,2])`,
    ]);
  });
});

describe('loadDataset: misuse', () => {
  it('throws dataset_invalid for a missing file, naming it', async () => {
    const missing = path.join(dir, 'nope.yaml');
    await expect(loadDataset(missing)).rejects.toSatisfy((e: unknown) => isLadderError(e, 'dataset_invalid') && (e as Error).message === `cannot read dataset ${missing}: no such file`);
  });

  it('throws dataset_invalid for an unsupported extension', async () => {
    await expect(loadDataset(path.join(dir, 'items.csv'))).rejects.toThrow(`${path.join(dir, 'items.csv')}: unsupported dataset extension ".csv"; expected one of .yaml, .yml, .json, .jsonl, .ndjson`);
  });

  it('throws dataset_invalid when the top level is not a list or a mapping with items', async () => {
    const f = file('.yaml', ['just text']);
    await expect(loadDataset(f)).rejects.toThrow(`${f}:1: a dataset file must be a list of items or a mapping with items`);
  });
});

describe('loadDataset: hostile files are malformed items, never crashes', () => {
  const item = (id: string): string => JSON.stringify({ id, question: 'q?', db: 'warehouse', gold_sql: 'SELECT 1' });

  it('reports a JSONL line nested 100 000 deep at its line and loads the others', async () => {
    const deep = `{"id":"deep","question":"q?","db":"warehouse","notes":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const f = file('.jsonl', [item('a'), deep, item('b')]);
    const { items, errors } = await loadDataset(f);
    expect(items.map((loaded) => loaded.id)).toEqual(['a', 'b']);
    expect(errors.map((error) => error.message)).toEqual([
      `${f}:2: item "deep": the item nests values more than 64 levels deep; a dataset item holds plain fields, lists and small mappings`,
    ]);
  });

  it('reports a YAML "billion laughs" item at its line and loads the others', async () => {
    const bomb = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (const [name, previous] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd'], ['f', 'e'], ['g', 'f'], ['h', 'g'], ['i', 'h']]) {
      bomb.push(`${name}: &${name} [${Array.from({ length: 9 }, () => `*${previous}`).join(', ')}]`);
    }
    const f = file('.yaml', [...GOOD, '  - id: bomb', '    question: q?', '    db: warehouse', '    gold_sql: SELECT 1', '    notes:', ...bomb.map((line) => `      ${line}`)].map((line) => line.replace(/^  /, '')));
    const { items, errors } = await loadDataset(f);
    expect(items.map((loaded) => loaded.id)).toEqual(['ok-1']);
    expect(errors.map((error) => error.message)).toEqual([`${f}:5: item "bomb": YAML: Excessive alias count indicates a resource exhaustion attack`]);
  });

  it('skips a byte-order mark before the first JSONL item', async () => {
    const f = file('.jsonl', [`\uFEFF${item('first')}`, item('second')]);
    const { items, errors } = await loadDataset(f);
    expect(errors).toEqual([]);
    expect(items.map((loaded) => loaded.id)).toEqual(['first', 'second']);
  });

  it('skips a byte-order mark before a YAML list', async () => {
    const f = file('.yaml', [`\uFEFF${GOOD[0]!.trim()}`, ...GOOD.slice(1).map((line) => line.replace(/^  /, ''))]);
    const { items, errors } = await loadDataset(f);
    expect(errors).toEqual([]);
    expect(items.map((loaded) => loaded.id)).toEqual(['ok-1']);
  });
});
