/**
 * Diagnostic rung `schemaLinking` (*Text-to-SQL Evals* §8): did the retriever find, and did the generator
 * use, the schema elements the question needs? Never a gate.
 *
 * Gold elements come from every gold query through the scope-aware resolution of
 * ../sql/references.ts (CTE names are not tables, columns used only in `JOIN … ON` count, a
 * table's alias resolves to the table). For SQLite the caller may add, per gold, the base tables
 * the engine's bytecode reads (`Engine.explain().tablesRead`, which sees through views): each
 * such list is one more valid gold table set. Any valid gold may match: each comparison keeps the
 * gold element set with the highest table recall (then the highest precision, then the first).
 *
 * Metrics for a ranked list of retrieved elements and a cut-off k (*Text-to-SQL Evals* §8):
 *
 *     table_recall@k  = |gold_tables ∩ retrieved_tables@k| / |gold_tables|
 *     column_recall@k = |gold_cols ∩ retrieved_cols@k|     / |gold_cols|
 *     all_tables_hit  = gold_tables ⊆ retrieved_tables@k
 *     precision@k     = |gold_tables ∩ retrieved_tables@k| / |retrieved_tables@k|
 *     F1@k            = 2·P·R / (P + R)   (table precision and recall; 0 when either is 0)
 *
 * `retrieved@k` is the first k entries of the list (all of them when k is not given). An entry is
 * a table (`orders`) or a column (`orders.amount`, split at the last dot); a column entry also
 * counts its table as retrieved for table metrics, and a table entry counts all of its columns as
 * retrieved (the retriever put the whole table in the prompt); a column entry covers only itself. Precision divides by the number of distinct
 * tables among the first k entries (the reference's code divides by `len(top_k)`, which equals k
 * whenever at least k tables were retrieved). Names compare lower-cased.
 *
 * The same metrics compare the gold with the tables and columns the predicted SQL uses
 * (`generation_*`). A gold table the prediction does not use is a **retrieval** miss when the
 * retriever did not return it and a **generation** miss when it was retrieved but not used.
 */
import type { Catalog } from '../engine/engine.js';
import { parseSqlCached, type Dialect } from '../sql/parse.js';
import { collectReferences } from '../sql/references.js';
import { createRungResult, createSkippedResult, type RungResult } from './rung-result.js';

/** Schema elements of one query: lower-cased table names and `table.column` names. */
export interface SchemaElements {
  readonly tables: readonly string[];
  readonly columns: readonly string[];
}

/**
 * The real tables and table columns one query uses (scope-aware, via collectReferences).
 * Columns of CTEs, derived tables and select-list aliases are not schema elements; `*` is not a
 * column. Without a catalog, a column's table is the table its qualifier (or its only source)
 * names.
 */
export function schemaElementsOf(
  sql: string,
  dialect: Dialect,
  catalog?: Catalog,
): { readonly ok: true; readonly elements: SchemaElements } | { readonly ok: false; readonly reason: string } {
  const parsed = parseSqlCached(sql, dialect);
  const program = parsed.ok && parsed.kind === 'cst' ? parsed.program : undefined;
  const refs = collectReferences({ sql, dialect, ...(catalog ? { catalog } : {}), ...(program ? { program } : {}) });
  if (!refs.ok) return { ok: false, reason: `${refs.code}: ${refs.reason}` };
  const tables = new Set<string>();
  const bySourceName = new Map<string, string>();
  for (const t of refs.tables) {
    const name = (t.table?.name ?? t.name).toLowerCase();
    tables.add(name);
    bySourceName.set((t.alias ?? t.name).toLowerCase(), name);
  }
  const columns = new Set<string>();
  for (const c of refs.columns) {
    if (c.name === '*') continue;
    const r = c.resolution;
    if (r.kind === 'table') columns.add(`${r.table.name}.${r.column}`.toLowerCase());
    else if (r.kind === 'unchecked') {
      const table = bySourceName.get(r.source.toLowerCase());
      if (table !== undefined) columns.add(`${table}.${c.name}`.toLowerCase());
    }
  }
  return { ok: true, elements: { tables: [...tables].sort(), columns: [...columns].sort() } };
}

/** Linking metrics of one comparison (see module doc). */
export interface LinkingScores {
  readonly tableRecall: number;
  /** null when the gold uses no column. */
  readonly columnRecall: number | null;
  readonly allTablesHit: boolean;
  readonly precision: number;
  readonly f1: number;
  /** The gold element set compared (its index in the candidate list; see details). */
  readonly goldCandidate: number;
  readonly goldTables: readonly string[];
  readonly retrievedTables: readonly string[];
  readonly missingTables: readonly string[];
}

/** A retrieved list cut at k and split into tables and columns. */
interface Retrieved {
  /** Tables named as entries, plus the tables of column entries. */
  readonly tables: ReadonlySet<string>;
  /** Tables named as entries themselves (all their columns count as retrieved). */
  readonly wholeTables: ReadonlySet<string>;
  readonly columns: ReadonlySet<string>;
}

function readRetrieved(entries: readonly string[], k: number | undefined): Retrieved {
  const top = (k === undefined ? entries : entries.slice(0, k)).map((e) => e.trim().toLowerCase()).filter((e) => e !== '');
  const tables = new Set<string>();
  const wholeTables = new Set<string>();
  const columns = new Set<string>();
  for (const entry of top) {
    const dot = entry.lastIndexOf('.');
    if (dot > 0 && dot < entry.length - 1) {
      columns.add(entry);
      tables.add(entry.slice(0, dot));
    } else {
      tables.add(entry);
      wholeTables.add(entry);
    }
  }
  return { tables, wholeTables, columns };
}

/** Scores one gold element set against a retrieved set. */
function scoreAgainst(gold: SchemaElements, retrieved: Retrieved, candidate: number): LinkingScores {
  const hits = gold.tables.filter((t) => retrieved.tables.has(t));
  const tableRecall = gold.tables.length === 0 ? 1 : hits.length / gold.tables.length;
  const precision = retrieved.tables.size === 0 ? 0 : hits.length / retrieved.tables.size;
  const columnHits = gold.columns.filter((c) => retrieved.columns.has(c) || retrieved.wholeTables.has(c.slice(0, c.lastIndexOf('.'))));
  return {
    tableRecall,
    columnRecall: gold.columns.length === 0 ? null : columnHits.length / gold.columns.length,
    allTablesHit: hits.length === gold.tables.length,
    precision,
    f1: tableRecall === 0 || precision === 0 ? 0 : (2 * precision * tableRecall) / (precision + tableRecall),
    goldCandidate: candidate,
    goldTables: gold.tables,
    retrievedTables: [...retrieved.tables],
    missingTables: gold.tables.filter((t) => !retrieved.tables.has(t)),
  };
}

/**
 * Scores every gold candidate that reads at least one table and keeps the best (highest table
 * recall, then precision, then the first). `null` when no candidate reads a table (`SELECT 1`).
 */
export function bestLinking(golds: readonly SchemaElements[], retrieved: readonly string[], k?: number): LinkingScores | null {
  if (k !== undefined && (!Number.isInteger(k) || k < 1)) throw new RangeError(`k must be a positive integer; received ${String(k)}`);
  const cut = readRetrieved(retrieved, k);
  let best: LinkingScores | null = null;
  golds.forEach((gold, index) => {
    if (gold.tables.length === 0) return;
    const s = scoreAgainst(gold, cut, index);
    if (!best || s.tableRecall > best.tableRecall || (s.tableRecall === best.tableRecall && s.precision > best.precision)) best = s;
  });
  return best;
}

/** Inputs of {@link scoreSchemaLinking}. */
export interface SchemaLinkingInput {
  readonly goldSqls: readonly string[];
  readonly dialect: Dialect;
  /** The predicted SQL, for the generation comparison and the miss classification. */
  readonly predictedSql?: string;
  /** Ranked schema elements the provider says it retrieved (`tables` in its JSON output), best first. */
  readonly retrieved?: readonly string[];
  /** Cut-off for `retrieved` (default: the whole list). */
  readonly k?: number;
  /** Catalog for column resolution (recommended; without it columns follow their qualifiers). */
  readonly catalog?: Catalog;
  /** Per gold (same order as `goldSqls`): base tables the engine reads (`explain().tablesRead`), or null. */
  readonly goldTablesRead?: readonly (readonly string[] | null)[];
  /** Base tables the engine reads for the predicted SQL, or null. */
  readonly predictedTablesRead?: readonly string[] | null;
}

/** Where a gold table went missing. */
export type MissSource = 'none' | 'retrieval' | 'generation' | 'retrieval+generation';

/** Details of a `schemaLinking` result. */
export interface SchemaLinkingDetails {
  /** Gold element sets compared: one per readable gold, plus one per engine `tablesRead` list. */
  readonly goldCandidates: readonly (SchemaElements & { readonly source: string })[];
  /** Against the retrieved list at k; null when no list was given. */
  readonly retrieval: LinkingScores | null;
  /** Against the predicted SQL's elements; null when no predicted SQL was given or it is unreadable. */
  readonly generation: LinkingScores | null;
  /** Gold tables the prediction misses, each with where it was lost. */
  readonly misses: readonly { readonly table: string; readonly source: 'retrieval' | 'generation' }[];
  readonly missSource: MissSource;
  readonly predictedElements: SchemaElements | null;
  readonly problems: readonly string[];
}

/**
 * Schema-linking metrics for one item (see module doc).
 *
 * @returns `schemaLinking` RungResult. `score`: retrieval table recall when a retrieved list is
 *   given, else generation table recall. `namedScores`: `schema_table_recall`,
 *   `schema_column_recall`, `schema_all_tables_hit` (0/1), `schema_precision`, `schema_f1`
 *   (retrieval), and `schema_generation_…` for the same against the predicted SQL. `status` pass
 *   when every gold table was hit. `skipped` when no gold reads a table or none is readable.
 * @example
 * // *Text-to-SQL Evals* §8: gold {orders, customers}; retrieved [orders, order_items, products, regions, customers]
 * // k=5 → table_recall 1, all_tables_hit true, precision 0.4; k=3 → 0.5, false
 */
export function scoreSchemaLinking(input: SchemaLinkingInput): RungResult<SchemaLinkingDetails | null> {
  const problems: string[] = [];
  const candidates: (SchemaElements & { source: string })[] = [];
  input.goldSqls.forEach((sql, index) => {
    const elements = schemaElementsOf(sql, input.dialect, input.catalog);
    if (elements.ok) candidates.push({ ...elements.elements, source: `gold ${index}` });
    else problems.push(`gold ${index}: ${elements.reason}`);
    const read = input.goldTablesRead?.[index];
    if (read && read.length > 0) {
      const columns = elements.ok ? elements.elements.columns : [];
      candidates.push({ tables: [...new Set(read.map((t) => t.toLowerCase()))].sort(), columns, source: `gold ${index} (engine tablesRead)` });
    }
  });
  if (candidates.every((c) => c.tables.length === 0)) {
    return createSkippedResult('schemaLinking', candidates.length === 0 ? `no readable gold SQL (${problems.join('; ') || 'no gold SQL given'})` : 'no gold query reads a table') as RungResult<null>;
  }
  const retrieval = input.retrieved ? bestLinking(candidates, input.retrieved, input.k) : null;
  let predictedElements: SchemaElements | null = null;
  let generation: LinkingScores | null = null;
  if (input.predictedSql !== undefined) {
    const predicted = schemaElementsOf(input.predictedSql, input.dialect, input.catalog);
    if (predicted.ok) {
      predictedElements = predicted.elements;
      const used = [...predicted.elements.tables, ...(input.predictedTablesRead ?? []), ...predicted.elements.columns];
      generation = bestLinking(candidates, used);
    } else {
      problems.push(`predicted: ${predicted.reason}`);
    }
  }
  const misses: { table: string; source: 'retrieval' | 'generation' }[] = [];
  if (generation) {
    const retrievedTables = retrieval ? new Set(readRetrieved(input.retrieved!, input.k).tables) : null;
    for (const table of generation.missingTables) {
      misses.push({ table, source: retrievedTables && !retrievedTables.has(table) ? 'retrieval' : 'generation' });
    }
  } else if (retrieval) {
    for (const table of retrieval.missingTables) misses.push({ table, source: 'retrieval' });
  }
  const kinds = new Set(misses.map((m) => m.source));
  const missSource: MissSource = kinds.size === 0 ? 'none' : kinds.size === 2 ? 'retrieval+generation' : [...kinds][0]!;
  const namedScores: Record<string, number> = {};
  const put = (prefix: string, s: LinkingScores | null): void => {
    if (!s) return;
    namedScores[`${prefix}table_recall`] = s.tableRecall;
    if (s.columnRecall !== null) namedScores[`${prefix}column_recall`] = s.columnRecall;
    namedScores[`${prefix}all_tables_hit`] = s.allTablesHit ? 1 : 0;
    namedScores[`${prefix}precision`] = s.precision;
    namedScores[`${prefix}f1`] = s.f1;
  };
  put('schema_', retrieval);
  put('schema_generation_', generation);
  const headline = retrieval ?? generation;
  if (!headline) {
    return createSkippedResult('schemaLinking', `nothing to compare the gold with: no retrieved list and no readable predicted SQL (${problems.join('; ')})`) as RungResult<null>;
  }
  const parts: string[] = [];
  if (retrieval) parts.push(`retrieval@${input.k ?? input.retrieved!.length}: recall ${retrieval.tableRecall.toFixed(2)}, precision ${retrieval.precision.toFixed(2)}`);
  if (generation) parts.push(`generation: recall ${generation.tableRecall.toFixed(2)}, precision ${generation.precision.toFixed(2)}`);
  if (misses.length > 0) parts.push(`missed ${misses.map((m) => `${m.table} (${m.source})`).join(', ')}`);
  return createRungResult({
    rung: 'schemaLinking',
    status: headline.allTablesHit && (!generation || generation.allTablesHit) ? 'pass' : 'fail',
    score: headline.tableRecall,
    reason: parts.join('; '),
    namedScores,
    details: { goldCandidates: candidates, retrieval, generation, misses, missSource, predictedElements, problems },
  });
}
