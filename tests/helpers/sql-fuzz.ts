/**
 * A seeded fuzzer over the SQL entry points: real queries (the golds of the bundled datasets, the
 * recorded model outputs, and the SQL literals of the test suite) mutated the ways model output
 * goes wrong or an adversary would push it — cut, repeated, nested, chained, quoted, commented,
 * fenced, and sprinkled with the characters parsers disagree on (NUL, BOM, bare CR, form feed,
 * lone surrogates, non-ASCII letters).
 *
 * {@link runFuzz} calls every entry point on every mutated text and records each call's time and
 * any throw; a call that throws or takes longer than the bound is a failure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadDataset } from '../../src/dataset/load.js';
import type { Catalog } from '../../src/engine/engine.js';
import { diagnoseItem } from '../../src/diagnostics/diagnose.js';
import { checkQueryText } from '../../src/engine/sqlite/query-gate.js';
import { createParseMemo } from '../../src/rungs/parse-memo.js';
import { checkSafety } from '../../src/rungs/safety.js';
import { checkSchema } from '../../src/rungs/schema.js';
import { checkSyntax } from '../../src/rungs/syntax.js';
import { extractSpiderUnits } from '../../src/benchmarks/spider/spider-units.js';
import { extractClauseComponents } from '../../src/sql/components.js';
import { extractSql } from '../../src/sql/extract.js';
import { normalizeSql } from '../../src/sql/normalize.js';
import { parseSql } from '../../src/sql/parse.js';
import { parseProviderOutput } from '../../src/sql/provider-output.js';
import { collectReferences } from '../../src/sql/references.js';
import { tokenizeSqlite } from '../../src/sql/sqlite-lexer.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** mulberry32: a small seeded PRNG with good enough spread for fuzzing. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The real queries: golds of datasets/*.yaml, outputs of providers/recordings/*.jsonl, and the
 * single-quoted SQL literals (SELECT, WITH, VALUES, PRAGMA, …) of the tests under tests/.
 */
export async function realQueries(): Promise<string[]> {
  const queries = new Set<string>();
  for (const file of readdirSync(path.join(ROOT, 'datasets')).filter((name) => name.endsWith('.yaml'))) {
    const { items } = await loadDataset(path.join(ROOT, 'datasets', file));
    for (const item of items) for (const gold of item.gold_sql) queries.add(gold);
  }
  for (const file of readdirSync(path.join(ROOT, 'providers', 'recordings')).filter((name) => name.endsWith('.jsonl'))) {
    for (const line of readFileSync(path.join(ROOT, 'providers', 'recordings', file), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const output = (JSON.parse(line) as { output?: unknown }).output;
      if (typeof output === 'string') queries.add(output);
    }
  }
  const literal = /'((?:SELECT|WITH|VALUES|PRAGMA|ATTACH|EXPLAIN|INSERT|UPDATE|DELETE|CREATE|DROP)\b(?:[^'\\\n]|\\.){8,}?)'/g;
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) for (const match of readFileSync(full, 'utf8').matchAll(literal)) queries.add(match[1]!.replace(/\\'/g, "'").replace(/\\n/g, '\n'));
    }
  };
  walk(path.join(ROOT, 'tests'));
  return [...queries].sort();
}

const INSERTS = [
  ' ', '\n', '\t', '\r', '\f', '\0', '\uFEFF', '\uD800', '\uDC00', 'é', '中', '😀', "'", '"', '`', '[', ']', '(', ')', ';', ',', '.', '*',
  '--', '/*', '*/', '```', '```sql\n', '\n```\n', ' OR ', ' AND ', ' || ', ' + ', ' UNION ALL SELECT 1', ' WHERE ', ' FROM ', ' JOIN t ON ',
  ' LIMIT ', ' GROUP BY 1', ' ORDER BY 1 DESC', 'SELECT ', 'WITH x AS (SELECT 1) ', ' CASE WHEN 1 THEN 2 END', 'pragma_table_info(\'t\')',
  ' IN (SELECT 1)', ' EXISTS (', 'NULL', '1e308', '-9223372036854775808', 'x\'0a\'', '?', ':name', '$1', '{"sql": "', '"}', 'Here is the query:\n',
];

/** One mutation of `text` (see the module doc). */
function mutate(text: string, random: () => number): string {
  const at = (): number => Math.floor(random() * (text.length + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  switch (Math.floor(random() * 11)) {
    case 0: {
      const start = at();
      return text.slice(0, start) + text.slice(start + Math.floor(random() * 12));
    }
    case 1: {
      const start = at();
      return text.slice(0, start) + pick(INSERTS) + text.slice(start);
    }
    case 2: {
      const start = at();
      const end = Math.min(text.length, start + 1 + Math.floor(random() * 40));
      const span = text.slice(start, end);
      return text.slice(0, end) + span.repeat(1 + Math.floor(random() * 20)) + text.slice(end);
    }
    case 3:
      return text.slice(0, at());
    case 4: {
      const words = text.split(' ');
      const i = Math.floor(random() * words.length);
      const j = Math.floor(random() * words.length);
      [words[i], words[j]] = [words[j]!, words[i]!];
      return words.join(' ');
    }
    case 5: {
      // A long chain: the shape that overflowed recursive walkers.
      const terms = 1 + Math.floor(random() * (random() < 0.05 ? 3_000 : 200));
      return `${text} WHERE ${Array.from({ length: terms }, (_, k) => `c${k % 5} = ${k}`).join(pick([' OR ', ' AND ', ' || ', ' + ']))}`;
    }
    case 6: {
      // Nesting: mostly shallow and balanced; sometimes thousands deep, or left open.
      const depth = 1 + Math.floor(random() * (random() < 0.03 ? 3_000 : 12));
      return `SELECT ${'('.repeat(depth)}${text}${')'.repeat(random() < 0.8 ? depth : Math.floor(depth / 2))}`;
    }
    case 7:
      return pick([`\`\`\`sql\n${text}\n\`\`\``, `Sure:\n${text}\nThis returns the rows.`, JSON.stringify({ sql: text, answer: 'ok' }), `${text};\n${text};`, `-- ${text}\n${text}`]);
    case 8: {
      const start = at();
      return text.slice(0, start) + pick(['\0', '\uFEFF', '\r', '\f', '\uD83D', 'é']) + text.slice(start);
    }
    case 9:
      return text.toUpperCase() === text ? text.toLowerCase() : text.toUpperCase();
    default: {
      const start = at();
      return text.slice(0, start) + pick(["'", '"', '/*', '(', '`', '[']) + text.slice(start);
    }
  }
}

/** The `index`-th fuzz input: a real query with 1–4 mutations, deterministic for a seed. */
export function fuzzInput(queries: readonly string[], random: () => number): string {
  let text = queries[Math.floor(random() * queries.length)]!;
  const rounds = 1 + Math.floor(random() * 4);
  for (let i = 0; i < rounds; i += 1) text = mutate(text, random);
  return text;
}

/** The catalog the schema entry points check against (the warehouse tables' names are enough). */
const CATALOG: Catalog = {
  tables: ['customers', 'orders', 'order_items', 'products', 'refunds', 'regions', 'users', 't'].map((name) => ({
    name,
    kind: 'table' as const,
    schema: 'main',
    columns: ['id', 'name', 'c0', 'c1', 'c2', 'c3', 'c4', 'customer_id', 'order_id', 'amount'].map((column) => ({ name: column, type: '', primaryKey: column === 'id' })),
  })),
};

/** One failing call. */
export interface FuzzFailure {
  readonly entry: string;
  readonly input: string;
  readonly problem: string;
}

/** What {@link runFuzz} found. */
export interface FuzzReport {
  readonly inputs: number;
  readonly calls: number;
  /** Calls that threw. */
  readonly throws: readonly FuzzFailure[];
  /** Calls that took longer than the bound. */
  readonly slow: readonly FuzzFailure[];
  /** Slowest call per entry point, ms. */
  readonly slowestMs: Readonly<Record<string, number>>;
}

/**
 * Runs every entry point on `count` fuzz inputs.
 * @param options.seed - PRNG seed; the same seed gives the same inputs.
 * @param options.count - inputs to generate.
 * @param options.boundMs - longest time one call may take.
 */
export async function runFuzz(options: { seed: number; count: number; boundMs: number }): Promise<FuzzReport> {
  const queries = await realQueries();
  const random = createRandom(options.seed);
  const throws: FuzzFailure[] = [];
  const slow: FuzzFailure[] = [];
  const slowestMs: Record<string, number> = {};
  let calls = 0;
  const call = async (entry: string, input: string, work: () => unknown): Promise<void> => {
    calls += 1;
    const started = performance.now();
    try {
      await work();
    } catch (error) {
      throws.push({ entry, input: clip(input), problem: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    }
    const ms = performance.now() - started;
    slowestMs[entry] = Math.max(slowestMs[entry] ?? 0, ms);
    if (ms > options.boundMs) slow.push({ entry, input: clip(input), problem: `${ms.toFixed(0)} ms` });
  };
  for (let index = 0; index < options.count; index += 1) {
    const input = fuzzInput(queries, random);
    const gold = queries[index % queries.length]!;
    await call('extractSql', input, () => extractSql(input));
    await call('parseProviderOutput', input, () => parseProviderOutput(input));
    await call('tokenizeSqlite', input, () => tokenizeSqlite(input));
    await call('checkQueryText', input, () => checkQueryText(input));
    await call('parseSql(sqlite)', input, () => parseSql(input, 'sqlite'));
    // The PostgreSQL grammar has no shortcut for unbalanced text: every fourth input, to keep the run short.
    if (index % 4 === 0) await call('parseSql(postgres)', input, () => parseSql(input, 'postgres'));
    // The rungs of one item share one parse, as the ladder runs them.
    const parses = createParseMemo('sqlite');
    await call('checkSyntax', input, () => checkSyntax({ sql: input, dialect: 'sqlite', parses }));
    await call('checkSchema', input, () => checkSchema({ sql: input, dialect: 'sqlite', catalog: CATALOG, parses }));
    await call('checkSafety', input, () => checkSafety({ sql: input, dialect: 'sqlite', policy: { maxLimit: 100, allowedTables: ['orders', 'customers'] }, parses }));
    await call('collectReferences', input, () => collectReferences({ sql: input, dialect: 'sqlite', catalog: CATALOG }));
    await call('normalizeSql', input, () => normalizeSql(input, 'sqlite'));
    await call('extractClauseComponents', input, () => extractClauseComponents(input, 'sqlite'));
    await call('extractSpiderUnits', input, () => extractSpiderUnits(input, 'sqlite'));
    await call('diagnoseItem', input, () => diagnoseItem({ predictedSql: input, goldSqls: [gold], dialect: 'sqlite' }));
  }
  return { inputs: options.count, calls, throws, slow, slowestMs };
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text;
}
