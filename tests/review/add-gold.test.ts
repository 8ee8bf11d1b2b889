import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { addGoldToDatasetText } from '../../src/review/add-gold.js';

const YAML_FILE = path.join(import.meta.dirname, 'fixtures', 'review-dataset.yaml');
const JSONL_FILE = path.join(import.meta.dirname, 'fixtures', 'review-dataset.jsonl');
const yamlText = readFileSync(YAML_FILE, 'utf8');

/** The lines of `after` that differ from `before`: the common head and tail removed. */
function changedLines(before: string, after: string): { removed: string[]; added: string[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  return { removed: a.slice(head, a.length - tail), added: b.slice(head, b.length - tail) };
}

function goldsOf(text: string, id: string): unknown {
  const data = parse(text) as { items: Array<{ id: string; gold_sql: unknown }> };
  return data.items.find((item) => item.id === id)?.gold_sql;
}

describe('adding a gold to a YAML dataset', () => {
  it('appends one entry to a list of golds, every other byte kept (comments between entries too)', () => {
    const sql = "SELECT COUNT(*) AS enterprise_customers FROM v_real_customers WHERE LOWER(segment) = 'enterprise'";
    const { text, goldIndex } = addGoldToDatasetText(YAML_FILE, yamlText, 'rv-003', sql);
    expect(goldIndex).toBe(2);
    expect(changedLines(yamlText, text)).toEqual({ removed: [], added: [`      - ${sql}`] });
    expect((goldsOf(text, 'rv-003') as string[])[2]).toBe(sql);
  });

  it('turns a one-line gold into a list of the old and the new, keeping its trailing comment', () => {
    const sql = "SELECT COUNT(*) AS orders FROM orders WHERE channel = 'partner' AND deleted_at IS NULL";
    const { text, goldIndex } = addGoldToDatasetText(YAML_FILE, yamlText, 'rv-001', sql);
    expect(goldIndex).toBe(1);
    expect(changedLines(yamlText, text)).toEqual({
      removed: ["    gold_sql: SELECT COUNT(*) AS orders FROM orders WHERE channel = 'partner'   # every status"],
      added: ['    gold_sql:', "      - SELECT COUNT(*) AS orders FROM orders WHERE channel = 'partner'   # every status", `      - ${sql}`],
    });
  });

  it('keeps a folded gold folded (two spaces deeper) and writes a multi-line gold as a literal block', () => {
    const sql = "SELECT COUNT(*) AS products\nFROM products\nWHERE UPPER(brand) = 'ACME'";
    const { text } = addGoldToDatasetText(YAML_FILE, yamlText, 'rv-002', sql);
    expect(changedLines(yamlText, text)).toEqual({
      removed: ['    gold_sql: >-', '      SELECT COUNT(*) AS products FROM products', "      WHERE brand = 'ACME'"],
      added: ['    gold_sql:', '      - >-', '        SELECT COUNT(*) AS products FROM products', "        WHERE brand = 'ACME'", '      - |-', '        SELECT COUNT(*) AS products', '        FROM products', "        WHERE UPPER(brand) = 'ACME'"],
    });
    expect(goldsOf(text, 'rv-002')).toEqual(["SELECT COUNT(*) AS products FROM products WHERE brand = 'ACME'", sql]);
  });

  it('quotes a gold that YAML would read as something else', () => {
    const { text } = addGoldToDatasetText(YAML_FILE, yamlText, 'rv-003', "SELECT 'a: b' AS x -- #1");
    expect(changedLines(yamlText, text).added).toEqual([`      - "SELECT 'a: b' AS x -- #1"`]);
  });

  it('adds to a flow list before its bracket', () => {
    const text = 'items:\n  - {id: a, question: q, db: warehouse, gold_sql: [SELECT 1]}  # flow\n';
    expect(addGoldToDatasetText('d.yaml', text, 'a', 'SELECT 2').text).toBe('items:\n  - {id: a, question: q, db: warehouse, gold_sql: [SELECT 1, "SELECT 2"]}  # flow\n');
  });

  it('keeps CRLF line ends and a last line without a newline', () => {
    const text = 'items:\r\n  - id: a\r\n    question: q\r\n    gold_sql: SELECT 1';
    expect(addGoldToDatasetText('d.yaml', text, 'a', 'SELECT 2').text).toBe('items:\r\n  - id: a\r\n    question: q\r\n    gold_sql:\r\n      - SELECT 1\r\n      - SELECT 2\r\n');
  });

  it('refuses what it cannot add without changing anything else, naming the file and item', () => {
    expect(() => addGoldToDatasetText('d.yaml', 'items:\n  - id: a\n    gold_sql: &g SELECT 1\n', 'a', 'SELECT 2')).toThrow('d.yaml: item "a": cannot add the gold: something stands between "gold_sql:" and its SQL (an anchor, a tag or a comment)');
    expect(() => addGoldToDatasetText('d.yaml', 'items:\n  - id: a\n    question: q\n', 'a', 'SELECT 2')).toThrow('d.yaml: item "a": cannot add the gold: the item has no gold_sql of its own; write its first gold by hand');
    expect(() => addGoldToDatasetText('d.yaml', yamlText, 'rv-404', 'SELECT 2')).toThrow('d.yaml: item "rv-404": cannot add the gold: no item with this id in the file');
  });
});

describe('adding a gold to a JSONL dataset', () => {
  const text = readFileSync(JSONL_FILE, 'utf8');

  it('makes a string gold a list on its own line; every other line, key order and spacing kept', () => {
    const { text: out, goldIndex } = addGoldToDatasetText(JSONL_FILE, text, 'rv-001', "SELECT COUNT(*) AS orders FROM orders WHERE channel = 'partner' AND deleted_at IS NULL");
    expect(goldIndex).toBe(1);
    const [first, second] = out.split('\n');
    expect(first).toBe(
      `{"id": "rv-001", "question": "How many orders came in through the partner channel?", "db": "warehouse", "gold_sql": ["SELECT COUNT(*) AS orders FROM orders WHERE channel = 'partner'", "SELECT COUNT(*) AS orders FROM orders WHERE channel = 'partner' AND deleted_at IS NULL"], "tags": {"difficulty": "easy"}}`,
    );
    expect(second).toBe(text.split('\n')[1]);
  });

  it('appends to a list in the line\'s own (compact) spacing', () => {
    const { text: out, goldIndex } = addGoldToDatasetText(JSONL_FILE, text, 'rv-003', 'SELECT 2');
    expect(goldIndex).toBe(1);
    expect(out.split('\n')[0]).toBe(text.split('\n')[0]);
    expect(out.split('\n')[1]).toBe(`{"id":"rv-003","question":"How many real Enterprise customers do we have?","db":"warehouse","gold_sql":["SELECT COUNT(*) AS enterprise_customers FROM v_real_customers WHERE segment = 'Enterprise' COLLATE NOCASE","SELECT 2"]}`);
  });
});
