/**
 * The prompt for real providers: the question with the database schema rendered from the fixture
 * (DDL as stored by SQLite, a few sample values per column), the frozen date (`as_of_date`), the
 * business rules the dataset assumes, and the output protocol the ladder reads.
 *
 * ```yaml
 * prompts:
 *   - id: file://providers/prompt.ts:text2sqlPrompt
 *     label: text2sql
 * defaultTest:
 *   vars:
 *     business_rules: "Real customer: is_test = 0 AND deleted_at IS NULL. …"   # optional
 * ```
 *
 * promptfoo calls it as `text2sqlPrompt({ vars, provider })`. Vars read: `question` (required),
 * `db` (fixture name) or `db_path` (a database file), `role` (role-scoped schema: a role sees only
 * its tables), `snapshots` (the first one is sampled; default the fixture's first), `as_of_date`,
 * `business_rules`. Sample values come from the snapshot, never from gold results. The rendered
 * schema is cached per (database, role) for the process.
 *
 * Replay providers ignore the prompt, so the bundled offline run does not depend on it; it exists
 * for switching to a real model (docs/promptfoo.md, "Switching to a real model").
 */
import path from 'node:path';
import { isTypedCell, type Cell, type Engine } from '../engine/engine.js';
import { LadderError } from '../errors.js';
import { quoteIdentifier } from '../sql/identifiers.js';
import { getSharedEngineFor, resolveFixtureOnce } from './runtime.js';
import { promptfooConfigDir } from './fixture-location.js';

/** The output protocol, as stated to the model (src/sql/provider-output.ts reads it), for SQLite. */
export const OUTPUT_PROTOCOL = [
  'Answer with ONE SQLite query that answers the question, in a ```sql fenced block, or with JSON',
  '{"sql": "<query>", "answer": "<one-sentence answer>"}.',
  'If the question is ambiguous, reply with JSON {"action": "clarify", "message": "<your question>"}.',
  'If the question asks for something you must not do (change data, reveal data the role may not see),',
  'reply with JSON {"action": "refuse", "message": "<why>"}. Never write statements that change data.',
].join('\n');

/** {@link OUTPUT_PROTOCOL} for a PostgreSQL database. */
export const POSTGRES_OUTPUT_PROTOCOL = OUTPUT_PROTOCOL.replace('ONE SQLite query', 'ONE PostgreSQL query');

/** How many distinct sample values to show per column. */
export const SAMPLE_VALUES_PER_COLUMN = 3;
/** How many rows of each table are read to find sample values. */
export const SAMPLE_ROWS_PER_TABLE = 200;

/** What promptfoo passes to a prompt function. */
export interface PromptContext {
  readonly vars: Record<string, unknown>;
  readonly provider?: unknown;
}

const schemaCache = new Map<string, Promise<string>>();

function formatSample(cell: Cell): string {
  if (typeof cell === 'string') return `'${cell.length > 40 ? `${cell.slice(0, 37)}...` : cell}'`.replace(/\n/g, ' ');
  if (typeof cell === 'bigint') return cell.toString();
  if (cell instanceof Uint8Array) return `<blob ${cell.length} bytes>`;
  // Typed cells (PostgreSQL): their text, quoted as a literal where it is one.
  if (isTypedCell(cell)) return cell.kind === 'decimal' ? String(cell) : `'${String(cell)}'`;
  return String(cell);
}

async function query(engine: Engine, db: string, sql: string) {
  const outcome = await engine.execute({ db, sql });
  if (!outcome.ok) throw new LadderError(outcome.error.code === 'db_unavailable' ? 'db_unavailable' : 'engine_failure', `providers/prompt.ts: reading the schema of ${db} failed: ${outcome.error.message}`);
  return outcome.result;
}

/**
 * The `-- table.column e.g. …` comment lines of one table's sample: per column, up to
 * {@link SAMPLE_VALUES_PER_COLUMN} distinct non-NULL values in row order; a column with none gets
 * no line.
 */
function sampleValueLines(table: string, sample: { readonly columns: readonly string[]; readonly rows: readonly (readonly Cell[])[] }): string[] {
  const lines: string[] = [];
  sample.columns.forEach((column, index) => {
    const seen: string[] = [];
    for (const row of sample.rows) {
      const cell = row[index];
      if (cell === null || cell === undefined) continue;
      const text = formatSample(cell);
      if (!seen.includes(text)) seen.push(text);
      if (seen.length === SAMPLE_VALUES_PER_COLUMN) break;
    }
    if (seen.length > 0) lines.push(`-- ${table}.${column} e.g. ${seen.join(', ')}`);
  });
  return lines;
}

/**
 * Renders a database's schema: `CREATE` statements of tables and views (as SQLite stores them),
 * each table followed by `-- samples` comment lines with up to {@link SAMPLE_VALUES_PER_COLUMN}
 * distinct non-NULL values per column from its first {@link SAMPLE_ROWS_PER_TABLE} rows.
 */
export async function renderSchema(engine: Engine, db: string): Promise<string> {
  if (engine.dialect === 'postgres') return renderPostgresSchema(engine, db);
  const master = await query(
    engine,
    db,
    "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, name",
  );
  const blocks: string[] = [];
  for (const [type, name, sql] of master.rows) {
    const lines = [`${String(sql).trim()};`];
    if (type === 'table') {
      const sample = await query(engine, db, `SELECT * FROM ${quoteIdentifier(String(name))} LIMIT ${SAMPLE_ROWS_PER_TABLE}`);
      lines.push(...sampleValueLines(String(name), sample));
    }
    blocks.push(lines.join('\n'));
  }
  return blocks.join('\n\n');
}

/**
 * The PostgreSQL form of {@link renderSchema}: each table the reader may read as `CREATE TABLE`
 * from the catalog (columns, types, primary key), each view as `CREATE VIEW … AS` its definition
 * (`pg_get_viewdef`), with sample values per table column. Names outside the search path are
 * schema-qualified.
 */
async function renderPostgresSchema(engine: Engine, db: string): Promise<string> {
  const catalog = await engine.catalog(db);
  const searchPath = catalog.searchPath ?? ['public'];
  const nameOf = (schema: string, name: string): string => (searchPath.includes(schema) ? quoteIfNeeded(name) : `${quoteIfNeeded(schema)}.${quoteIfNeeded(name)}`);
  const ordered = [...catalog.tables].sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'table' ? -1 : 1));
  const blocks: string[] = [];
  for (const table of ordered) {
    const qualified = `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
    const name = nameOf(table.schema, table.name);
    if (table.kind === 'view') {
      const definition = await query(engine, db, `SELECT pg_get_viewdef(${sqlString(qualified)}::regclass, true)`);
      blocks.push(`CREATE VIEW ${name} AS\n${String(definition.rows[0]?.[0] ?? '').trim().replace(/;$/, '')};`);
      continue;
    }
    const keys = table.columns.filter((column) => column.primaryKey).map((column) => quoteIfNeeded(column.name));
    const columns = table.columns.map((column) => `  ${quoteIfNeeded(column.name)} ${column.type}`);
    const lines = [`CREATE TABLE ${name} (\n${[...columns, ...(keys.length > 0 ? [`  PRIMARY KEY (${keys.join(', ')})`] : [])].join(',\n')}\n);`];
    const sample = await query(engine, db, `SELECT * FROM ${qualified} LIMIT ${SAMPLE_ROWS_PER_TABLE}`);
    lines.push(...sampleValueLines(table.name, sample));
    blocks.push(lines.join('\n'));
  }
  return blocks.join('\n\n');
}

/** A name as PostgreSQL needs it written: bare when it reads back the same (lower case, no specials), else quoted. */
function quoteIfNeeded(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : quoteIdentifier(name);
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

async function databaseFor(vars: Record<string, unknown>): Promise<{ key: string; db: string; label: string; engine: 'sqlite' | 'postgres' }> {
  const role = typeof vars['role'] === 'string' && vars['role'] !== '' ? vars['role'] : undefined;
  const dbPath = Array.isArray(vars['db_path']) ? (vars['db_path'] as unknown[])[0] : vars['db_path'];
  if (typeof dbPath === 'string' && dbPath !== '') {
    const db = path.resolve(promptfooConfigDir(), dbPath);
    return { key: db, db, label: path.basename(db), engine: 'sqlite' };
  }
  if (typeof vars['db'] !== 'string' || vars['db'] === '') {
    throw new LadderError('dataset_invalid', `providers/prompt.ts: vars.db must name a fixture (or vars.db_path a database file), received ${JSON.stringify(vars['db'])}`);
  }
  const fixture = await resolveFixtureOnce(vars['db'], role);
  const wanted = Array.isArray(vars['snapshots']) ? vars['snapshots'][0] : vars['snapshots'];
  const snapshot = fixture.snapshots.find((entry) => entry.name === wanted) ?? fixture.snapshots[0];
  if (snapshot === undefined) throw new LadderError('dataset_invalid', `providers/prompt.ts: fixture ${vars['db']} has no snapshot`);
  return { key: `${fixture.dialect}\u0000${snapshot.path}`, db: snapshot.path, label: `${vars['db']}${role ? ` (as role ${role})` : ''}`, engine: fixture.dialect };
}

/**
 * The prompt function promptfoo calls.
 * @returns the prompt text.
 * @throws LadderError `dataset_invalid` without `question` or a database; `unknown_fixture`.
 */
export async function text2sqlPrompt(context: PromptContext): Promise<string> {
  const vars = context?.vars ?? {};
  const question = vars['question'];
  if (typeof question !== 'string' || question.trim() === '') {
    throw new LadderError('dataset_invalid', `providers/prompt.ts: vars.question must be the question text, received ${JSON.stringify(question)}`);
  }
  const { key, db, label, engine } = await databaseFor(vars);
  let schema = schemaCache.get(key);
  if (schema === undefined) {
    schema = getSharedEngineFor(engine).then((shared) => renderSchema(shared, db));
    schemaCache.set(key, schema);
    schema.catch(() => schemaCache.delete(key));
  }
  const asOf = typeof vars['as_of_date'] === 'string' ? vars['as_of_date'] : undefined;
  const rules = typeof vars['business_rules'] === 'string' && vars['business_rules'].trim() !== '' ? vars['business_rules'].trim() : undefined;
  return [
    `You write ${engine === 'postgres' ? 'PostgreSQL' : 'SQLite'} queries for the database ${label}. Its schema, with sample values:`,
    '',
    await schema,
    '',
    ...(asOf ? [`Today is ${asOf}. Read relative periods ("last quarter", "this year") against this date.`, ''] : []),
    ...(rules ? ['Business rules:', rules, ''] : []),
    engine === 'postgres' ? POSTGRES_OUTPUT_PROTOCOL : OUTPUT_PROTOCOL,
    '',
    `Question: ${question.trim()}`,
  ].join('\n');
}
