/**
 * Neighbour queries of a gold: near-misses a model could plausibly write, each one edit away from
 * the gold. A test suite is good when it tells the gold apart from every neighbour that is not
 * equivalent to it (Zhong, Yu & Klein, "Semantic Evaluation for Text-to-SQL with Distilled Test
 * Suites", EMNLP 2020, §3: drop any span of tokens; replace a token with another of its family —
 * aggregates, comparison operators, AND/OR, ASC/DESC, LIKE/NOT LIKE, IN/NOT IN, arithmetic
 * operators, column names; perturb literals: integers ±1 and random in ±(|v|+1), floats ±0.1,
 * strings by substrings and `%`). Added here, from the same idea: dropping whole predicates, join
 * conditions, clauses and list items (spans longer than a few tokens), LEFT ↔ INNER join, adding
 * DISTINCT, LIMIT k ± 1, a column swapped only for another column of the same table, changing case
 * of string literals, IS NULL ↔ IS NOT NULL, EXISTS ↔ NOT EXISTS, BETWEEN ↔ NOT BETWEEN, and a
 * DESC added to an ORDER BY key that has no direction.
 *
 * Edits are computed on the shared SQLite tokens (sql/sqlite-lexer.ts) and, when the AST layer can
 * read the gold, on its concrete syntax tree's source ranges; the gold's text outside an edit is
 * kept byte for byte. {@link findNeighbours} keeps the candidates SQLite prepares on the schema
 * and that differ from the gold beyond spelling ({@link equivalenceKey}: keyword case, `AS`,
 * `ASC`, `<>` vs `!=`); drops of an unused output alias or of a qualifier are not neighbours.
 */
import type { Engine } from '../../engine/engine.js';
import { tokenizeSqlite } from '../../sql/sqlite-lexer.js';
import { equivalentOverDomain } from './domain-equivalence.js';
import { mergeOperators } from '../model/gold-literals.js';
import { columnSwaps, tokenNeighbours, treeNeighbours } from './neighbour-edits.js';
import { cosmeticRanges, domainComparisons, equivalentEdits, isCosmeticDrop } from './neighbour-equivalence.js';
import { catalogFrom, readTree, word } from './neighbour-syntax.js';
import type { EquivalentCounts, NeighbourCandidate, NeighbourKind, NeighbourOptions } from './neighbour-types.js';
import { createPrng } from '../model/prng.js';
import type { DatabaseSchema } from '../model/schema-reader.js';

export { numberPerturbations, stringPerturbations } from './literal-perturbations.js';

/**
 * Lists the neighbour candidates of a gold (not yet checked by SQLite).
 *
 * @param gold - the gold SQL as it runs.
 * @param schema - the schema (columns for swaps and NOT NULL facts).
 * @returns candidates with distinct texts, none equal to the gold, in a stable order.
 * @example
 * listNeighbourCandidates('SELECT name FROM t WHERE age > 30', schema).map((n) => n.sql)
 * // includes 'SELECT name FROM t WHERE age >= 30', 'SELECT name FROM t', 'SELECT name FROM t WHERE age > 31', …
 */
export function listNeighbourCandidates(gold: string, schema: DatabaseSchema, options: NeighbourOptions = {}): NeighbourCandidate[] {
  return collectCandidates(gold, schema, options).candidates;
}

function collectCandidates(gold: string, schema: DatabaseSchema, options: NeighbourOptions): { candidates: NeighbourCandidate[]; equivalent: EquivalentCounts } {
  const equivalent = { cosmetic: 0, redundantDistinct: 0, keyJoin: 0, domain: 0 };
  const rng = createPrng(`neighbours/${options.seed ?? 0}/${gold}`);
  const out: NeighbourCandidate[] = [];
  const seen = new Set<string>([collapse(gold)]);
  const tokens = mergeOperators(tokenizeSqlite(gold)).filter((t) => t.kind !== 'semicolon');
  const tree = readTree(gold, options.catalog ?? catalogFrom(schema));
  const cosmetic = tree ? cosmeticRanges(tree) : [];
  const redundant = tree ? equivalentEdits(gold, tree, schema) : { distinctAt: new Set<number>(), joinAt: new Set<number>() };
  const comparisons = tree && options.finiteDomains && options.finiteDomains.size > 0 ? domainComparisons(tree, options.finiteDomains) : [];
  const add = (kind: NeighbourKind, start: number, end: number, replacement: string, description: string): void => {
    const sql = splice(gold, start, end, replacement);
    const key = collapse(sql);
    if (key === '' || seen.has(key)) return;
    seen.add(key);
    if (replacement === '' && isCosmeticDrop(tokens, start, end, cosmetic)) {
      equivalent.cosmetic += 1;
      return;
    }
    if (kind === 'add_distinct' && redundant.distinctAt.has(start)) {
      equivalent.redundantDistinct += 1;
      return;
    }
    if (kind === 'swap_join' && [...redundant.joinAt].some((at) => at >= start && at < Math.max(end, start + 1))) {
      equivalent.keyJoin += 1;
      return;
    }
    if (comparisons.some((c) => equivalentOverDomain(gold, c, { start, end, replacement }))) {
      equivalent.domain += 1;
      return;
    }
    out.push({ sql, kind, start, end, replacement, description });
  };
  // Whole predicates, conditions, clauses and items first, so that a drop that is also a short
  // token span keeps the more telling kind.
  if (tree) treeNeighbours(gold, tree.statement, add);
  tokenNeighbours(gold, tokens, add, rng, options.maxSpanTokens ?? 4, tree?.stringLiteralStarts ?? new Set<number>());
  if (tree) columnSwaps(gold, tree, schema, add, rng, options);
  return { candidates: out, equivalent };
}

/** Replaces `[start, end)` and tidies the whitespace the edit leaves. */
function splice(sql: string, start: number, end: number, replacement: string): string {
  if (replacement === '') {
    const before = sql.slice(0, start).replace(/[ \t]+$/, '');
    const after = sql.slice(end).replace(/^[ \t]+/, '');
    const joiner = before === '' || after === '' || /^[),;]/.test(after) || /\($/.test(before) ? '' : ' ';
    return (before + joiner + after).trim();
  }
  return sql.slice(0, start) + replacement + sql.slice(end);
}

function collapse(sql: string): string {
  return sql.replace(/\s+/g, ' ').replace(/;\s*$/, '').trim();
}

/** A neighbour SQLite accepts and that is not the gold under normalization. */
export interface Neighbour extends NeighbourCandidate {
  /** 0-based position in the gold's neighbour list (stable for a given gold, schema and seed). */
  readonly index: number;
}

/** Inputs of {@link findNeighbours}. */
export interface FindNeighboursInput extends NeighbourOptions {
  readonly engine: Engine;
  /** A database with the schema (the neighbours are prepared there, never run). */
  readonly db: string;
  /** The gold SQL as it runs (after the policy's rewrites). */
  readonly gold: string;
  readonly schema: DatabaseSchema;
  /** Applied to every candidate before it is prepared (the policy's rewrites for predictions). */
  readonly rewrite?: (sql: string) => string;
  /** Most neighbours kept (default 600; sampled by the seed when more prepare). */
  readonly maxNeighbours?: number;
  /** Deadline per prepare, ms. */
  readonly timeoutMs?: number;
}

/** Neighbours and what was filtered out. */
export interface NeighbourSet {
  readonly neighbours: readonly Neighbour[];
  /** Candidates listed. */
  readonly candidates: number;
  /** Candidates SQLite did not prepare. */
  readonly unprepared: number;
  /** Candidates equal to the gold (or to another candidate) up to spelling ({@link equivalenceKey}). */
  readonly equivalent: number;
  /** Candidates left out before preparing because they provably change nothing. */
  readonly provablyEquivalent: EquivalentCounts;
  /** Prepared, non-equivalent candidates left out by `maxNeighbours`. */
  readonly capped: number;
}

/**
 * Lists a gold's neighbours that prepare on the schema and differ from the gold.
 * @returns the neighbours (indexed), with counts of what was filtered out.
 */
export async function findNeighbours(input: FindNeighboursInput): Promise<NeighbourSet> {
  const { candidates, equivalent: provablyEquivalent } = collectCandidates(input.gold, input.schema, input);
  const goldKey = equivalenceKey(input.gold);
  const seen = new Set<string>([collapse(input.gold)]);
  const rewritten = candidates
    .map((c) => (input.rewrite ? { ...c, sql: input.rewrite(c.sql) } : c))
    .filter((c) => {
      const key = collapse(c.sql);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const prepared = await mapConcurrent(rewritten, 8, (c) =>
    input.engine.prepare({ db: input.db, sql: c.sql, ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }) }),
  );
  let unprepared = 0;
  let equivalent = 0;
  const kept: NeighbourCandidate[] = [];
  const keys = new Set<string>();
  rewritten.forEach((candidate, i) => {
    if (!prepared[i]!.ok) {
      unprepared += 1;
      return;
    }
    const key = equivalenceKey(candidate.sql);
    if (key === goldKey || keys.has(key)) {
      equivalent += 1;
      return;
    }
    keys.add(key);
    kept.push(candidate);
  });
  const max = input.maxNeighbours ?? 600;
  const rng = createPrng(`neighbour-cap/${input.seed ?? 0}/${input.gold}`);
  const chosen = kept.length > max ? rng.shuffle(kept.map((_, i) => i)).slice(0, max).sort((a, b) => a - b).map((i) => kept[i]!) : kept;
  return {
    neighbours: chosen.map((c, index) => ({ ...c, index })),
    candidates: candidates.length,
    unprepared,
    equivalent,
    provablyEquivalent,
    capped: kept.length - chosen.length,
  };
}

/**
 * A token key equal for texts that differ only in keyword case, `AS`, `ASC`, `INNER` / `OUTER`,
 * `<>` vs `!=`, `==` vs `=` or a trailing semicolon (cheaper than full normalization, which costs
 * a parse per candidate).
 */
export function equivalenceKey(sql: string): string {
  return mergeOperators(tokenizeSqlite(sql))
    .filter((t) => t.kind !== 'semicolon' && !['as', 'asc', 'inner', 'outer'].includes(word(t)))
    .map((t) => {
      if (t.kind === 'word') return t.value.toLowerCase();
      if (t.kind === 'quoted_identifier') return `"${t.value.toLowerCase()}"`;
      if (t.kind === 'string') return `'${t.value}'`;
      if (t.kind === 'double_quoted') return `"${t.value}"`;
      return t.value === '<>' ? '!=' : t.value === '==' ? '=' : t.value;
    })
    .join(' ');
}

/**
 * True when two query texts run as the same statement on every database: they differ only in
 * what {@link equivalenceKey} leaves out (the case of keywords and identifiers, `AS`, `ASC`,
 * `INNER` / `OUTER`, `<>` vs `!=`, `==` vs `=`, whitespace, a trailing semicolon). A text with a
 * non-ASCII character must match token for token, case included: SQLite folds the case of ASCII
 * letters only.
 */
export function sameQueryText(a: string, b: string): boolean {
  if (!/[^\x00-\x7f]/.test(a) && !/[^\x00-\x7f]/.test(b)) return equivalenceKey(a) === equivalenceKey(b);
  const exact = (sql: string): string => tokenizeSqlite(sql).filter((t) => t.kind !== 'semicolon').map((t) => `${t.kind}:${t.value}`).join(' ');
  return exact(a) === exact(b);
}

/** Maps with at most `limit` promises pending, keeping order. */
export async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next;
      next += 1;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
