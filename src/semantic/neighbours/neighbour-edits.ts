/**
 * The edits that make a gold's neighbours, each one span of the gold replaced: on its SQLite
 * tokens (operators, keywords, literals, dropped spans), on its syntax tree's source ranges
 * (whole predicates, clauses, items) and on its column references (swaps within a table). Each
 * edit is handed to the caller's `add`, which filters and keeps it (neighbours.ts).
 */
import { quoteIdentifier } from '../../sql/identifiers.js';
import { positionAt } from '../../sql/parse.js';
import { isSqlNode, keywordText, type SqlNode } from '../../sql/sql-tree.js';
import type { SqliteToken } from '../../sql/sqlite-lexer.js';
import { numberValue } from '../model/gold-literals.js';
import { numberPerturbations, stringPerturbations } from './literal-perturbations.js';
import { AGGREGATES, rangeOf, visit, word, type ReadTree } from './neighbour-syntax.js';
import type { NeighbourKind, NeighbourOptions } from './neighbour-types.js';
import type { Prng } from '../model/prng.js';
import { findColumn, findTable, type DatabaseSchema } from '../model/schema-reader.js';

const COMPARISONS = ['=', '!=', '<', '>', '<=', '>='];
const ARITHMETIC = ['+', '-', '*', '/'];
const CLAUSES = new Set(['where_clause', 'group_by_clause', 'having_clause', 'order_by_clause', 'limit_clause']);

/** Receives one edit: the kind, the replaced `[start, end)` of the gold, the replacement, a description. */
export type AddCandidate = (kind: NeighbourKind, start: number, end: number, replacement: string, description: string) => void;

function show(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return `\`${one.length > 60 ? `${one.slice(0, 57)}…` : one}\``;
}

/** Token edits: swapped operators, keywords and aggregates, perturbed literals, LIMIT ± 1, dropped spans of up to `maxSpan` tokens. */
export function tokenNeighbours(gold: string, tokens: readonly SqliteToken[], add: AddCandidate, rng: Prng, maxSpan: number, stringStarts: ReadonlySet<number>): void {
  let depth = 0;
  const betweenDepths: number[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    const w = word(token);
    const next = tokens[i + 1];
    const previous = tokens[i - 1];
    if (token.value === '(') depth += 1;
    if (token.value === ')') depth -= 1;
    const replaceToken = (kind: NeighbourKind, replacement: string): void =>
      add(kind, token.start, token.end, replacement, `${show(token.value)} → ${show(replacement)}`);

    if (AGGREGATES.includes(w) && next?.value === '(') {
      for (const other of AGGREGATES) if (other !== w) replaceToken('swap_aggregate', matchCase(other, token.value));
    }
    if (token.kind === 'punctuation' && ['=', '==', '!=', '<>', '<', '>', '<=', '>='].includes(token.value)) {
      const canonical = token.value === '==' ? '=' : token.value === '<>' ? '!=' : token.value;
      for (const other of COMPARISONS) if (other !== canonical) replaceToken('swap_comparison', other);
    }
    if (w === 'between') betweenDepths.push(depth);
    if (w === 'and' && betweenDepths[betweenDepths.length - 1] === depth) {
      betweenDepths.pop();
    } else if (w === 'and' || w === 'or') {
      replaceToken('swap_logic', matchCase(w === 'and' ? 'or' : 'and', token.value));
    }
    if (w === 'asc' || w === 'desc') replaceToken('swap_order', matchCase(w === 'asc' ? 'desc' : 'asc', token.value));
    // NOT-able operators: LIKE, GLOB, IN (…), BETWEEN, EXISTS.
    const notable: Partial<Record<string, NeighbourKind>> = { like: 'swap_like', glob: 'swap_like', in: 'swap_in', between: 'swap_between', exists: 'swap_exists' };
    const notKind = notable[w];
    if (notKind !== undefined && (w !== 'in' || next?.value === '(')) {
      if (word(previous) === 'not') {
        add(notKind, previous!.start, token.end, token.value, `${show(gold.slice(previous!.start, token.end))} → ${show(token.value)}`);
      } else {
        replaceToken(notKind, `${matchCase('not', token.value)} ${token.value}`);
      }
    }
    if (w === 'is' && word(next) === 'not') add('swap_null_test', token.start, next!.end, token.value, `${show(gold.slice(token.start, next!.end))} → ${show(token.value)}`);
    else if (w === 'is' && word(next) === 'null') replaceToken('swap_null_test', `${token.value} ${matchCase('not', token.value)}`);
    if (w === 'join') {
      const p = word(previous);
      const pp = word(tokens[i - 2]);
      if (p === 'left' || (p === 'outer' && pp === 'left')) {
        const from = p === 'left' ? previous! : tokens[i - 2]!;
        add('swap_join', from.start, token.end, token.value, `${show(gold.slice(from.start, token.end))} → ${show(token.value)}`);
      } else if (p === 'inner') {
        add('swap_join', previous!.start, token.end, `${matchCase('left', token.value)} ${token.value}`, `${show(gold.slice(previous!.start, token.end))} → LEFT JOIN`);
      } else if (!['right', 'full', 'cross', 'natural', 'outer'].includes(p)) {
        replaceToken('swap_join', `${matchCase('left', token.value)} ${token.value}`);
      }
    }
    if (w === 'select' && !['distinct', 'all'].includes(word(next))) {
      const at = positionAt(gold, token.start);
      add('add_distinct', token.end, token.end, ` ${matchCase('distinct', token.value)}`, `added DISTINCT after the SELECT at line ${at.line}, column ${at.column}`);
    }
    if (w === 'count' && next?.value === '(') {
      const arg = tokens[i + 2];
      if (arg && arg.value !== '*' && arg.value !== ')' && word(arg) !== 'distinct') add('add_distinct', next.end, next.end, `${matchCase('distinct', token.value)} `, 'COUNT(…) → COUNT(DISTINCT …)');
    }
    if (token.kind === 'number') {
      const value = numberValue(token.value);
      if (value === undefined) continue;
      const limitLike = ['limit', 'offset'].includes(word(previous)) || (previous?.value === ',' && word(tokens[i - 3]) === 'limit');
      if (limitLike && typeof value === 'bigint') {
        for (const k of [value + 1n, value - 1n]) if (k >= 0n) add('limit', token.start, token.end, String(k), `${word(previous).toUpperCase() || 'LIMIT'} ${token.value} → ${k}`);
        continue;
      }
      for (const replacement of numberPerturbations(value, rng)) add('literal', token.start, token.end, replacement, `${show(token.value)} → ${show(replacement)}`);
    }
    const quoted = token.kind === 'string' ? "'" : token.kind === 'double_quoted' && stringStarts.has(token.start) ? '"' : null;
    if (quoted !== null) {
      for (const value of stringPerturbations(token.value, rng)) {
        const replacement = quoted + value.split(quoted).join(quoted + quoted) + quoted;
        add('literal', token.start, token.end, replacement, `${show(gold.slice(token.start, token.end))} → ${show(replacement)}`);
      }
    }
  }
  // Drop every span of up to maxSpan tokens (after the replacements, so that a drop giving the
  // same text as a replacement keeps the replacement's kind and equivalence check).
  for (let i = 0; i < tokens.length; i += 1) {
    for (let len = 1; len <= maxSpan && i + len <= tokens.length; len += 1) {
      const start = tokens[i]!.start;
      const end = tokens[i + len - 1]!.end;
      add('drop_span', start, end, '', `dropped ${show(gold.slice(start, end))}`);
    }
  }
}

function matchCase(replacement: string, original: string): string {
  return original === original.toUpperCase() ? replacement.toUpperCase() : original === original.toLowerCase() ? replacement.toLowerCase() : replacement;
}

/** Edits on the syntax tree: whole predicates, join conditions, clauses and list items dropped, arithmetic swapped, DESC added. */
export function treeNeighbours(gold: string, statement: SqlNode, add: AddCandidate): void {
  visit(statement, (node, parent, field) => {
    const range = rangeOf(node);
    if (range === undefined) return;
    if (node.type === 'binary_expr') {
      const op = keywordText(node['operator']);
      const left = rangeOf(node['left']);
      const right = rangeOf(node['right']);
      if (left && right && (op === 'and' || op === 'or')) {
        add('drop_predicate', left[0], right[0], '', `dropped ${show(gold.slice(left[0], right[0]))}`);
        add('drop_predicate', left[1], right[1], '', `dropped ${show(gold.slice(left[1], right[1]))}`);
      }
      if (left && right && (ARITHMETIC.includes(op) || op === '%')) {
        const offset = gold.slice(left[1], right[0]).indexOf(op);
        if (offset >= 0) {
          const at = left[1] + offset;
          for (const other of ARITHMETIC) if (other !== op) add('swap_arithmetic', at, at + op.length, other, `${show(op)} → ${show(other)}`);
        }
      }
    }
    if (node.type === 'join_on_specification' || node.type === 'join_using_specification') {
      add('drop_join_condition', range[0], range[1], '', `dropped ${show(gold.slice(range[0], range[1]))}`);
    }
    if (CLAUSES.has(node.type)) add('drop_clause', range[0], range[1], '', `dropped ${show(gold.slice(range[0], range[1]))}`);
    if (node.type === 'list_expr' && parent && ['select_clause', 'group_by_clause', 'order_by_clause', 'partition_by_clause'].includes(parent.type) && field !== 'modifiers') {
      const items = ((node['items'] as unknown[]) ?? []).map(rangeOf).filter((r): r is [number, number] => r !== undefined);
      if (items.length < 2) return;
      items.forEach((item, k) => {
        const [start, end] = k === 0 ? [item[0], items[1]![0]] : [items[k - 1]![1], item[1]];
        add('drop_item', start, end, '', `dropped ${show(gold.slice(item[0], item[1]))}`);
      });
    }
    if (node.type === 'order_by_clause') {
      const specifications = node['specifications'];
      const items = isSqlNode(specifications) && specifications.type === 'list_expr' ? ((specifications['items'] as unknown[]) ?? []) : [specifications];
      for (const item of items) {
        const itemRange = rangeOf(item);
        if (itemRange === undefined || (isSqlNode(item) && item.type === 'sort_specification' && item['direction'] !== undefined)) continue;
        add('add_desc', itemRange[1], itemRange[1], ' DESC', `${show(gold.slice(itemRange[0], itemRange[1]))} → ${show(`${gold.slice(itemRange[0], itemRange[1])} DESC`)}`);
      }
    }
  });
}

const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A column reference swapped for another column of the same table (sampled; none inside COUNT between two NOT NULL columns). */
export function columnSwaps(gold: string, tree: ReadTree, schema: DatabaseSchema, add: AddCandidate, rng: Prng, options: NeighbourOptions): void {
  const refs = tree.references;
  if (!refs.ok) return;
  // COUNT arguments: a swap between two NOT NULL columns there changes nothing.
  const countArgs: [number, number][] = [];
  visit(tree.statement, (node) => {
    if (node.type !== 'func_call') return;
    const name = node['name'];
    if (!isSqlNode(name) || String(name['name'] ?? '').toLowerCase() !== 'count') return;
    const args = rangeOf(node['args']);
    if (args) countArgs.push(args);
  });
  const maxSwaps = options.maxColumnSwaps ?? 12;
  for (const ref of refs.columns) {
    const resolution = ref.resolution;
    if (resolution.kind !== 'table') continue;
    const written = gold.slice(ref.start, ref.end);
    const dot = written.lastIndexOf('.');
    const nameStart = ref.start + dot + 1;
    const baseTable = findTable(schema, resolution.table.name);
    const original = baseTable ? findColumn(baseTable, resolution.column) : undefined;
    const inCount = countArgs.some(([s, e]) => ref.start >= s && ref.end <= e);
    const others = resolution.table.columns.map((c) => c.name).filter((name) => name.toLowerCase() !== resolution.column.toLowerCase());
    const chosen = others.length > maxSwaps ? rng.shuffle(others).slice(0, maxSwaps) : others;
    for (const other of chosen) {
      if (inCount && original?.notNull && baseTable && findColumn(baseTable, other)?.notNull) continue;
      const replacement = PLAIN_IDENTIFIER.test(other) ? other : quoteIdentifier(other);
      add('swap_column', nameStart, ref.end, replacement, `${show(written)} → ${show(replacement)}`);
    }
  }
}
