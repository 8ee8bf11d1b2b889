/**
 * `text2sql-ladder check`: the static rungs (L1 syntax, L2 schema, L3 safety) on SQL or model
 * output read from stdin — a pre-execution guardrail for scripts and CI.
 *
 *   echo "SELECT amont FROM orders" | text2sql-ladder check --db shop.sqlite
 *   text2sql-ladder check --db warehouse --role analyst --max-limit 1000 --json < output.txt
 *
 * `--db` is a SQLite database file, a fixture name (e.g. `warehouse`, or an app's own, found in
 * `--fixtures <dir>` or `$TEXT2SQL_LADDER_FIXTURES`; `--role` needs a fixture, and L3 then allows
 * only the role's tables; a `dialect: postgres` fixture runs on PostgreSQL), a `postgres://` URL (a database you
 * loaded on your own server, read as the URL's role), or, for a dialect other than SQLite, a DDL
 * file (`.sql`) that gives the catalog. `--dialect` defaults to the database's (`postgres` for a
 * URL or a PostgreSQL fixture), else `sqlite`. On PostgreSQL the server decides L1 (its parse and
 * describe) and gives L2 its catalog (search_path included); `--postgres-url` names the server
 * PostgreSQL fixtures are built on (default: `TEXT2SQL_LADDER_POSTGRES_URL`, else a private server
 * for the command). Only SQLite needs `--db`:
 * without one, another dialect gets L1 and L3 and a skipped L2; Snowflake's L2 is always skipped
 * (its trees have no scope resolution), so its DDL is not read. When stdin is a
 * terminal, a prompt on stderr says how to end the input. The rungs run through the gate runner
 * shared with the ladder (src/rungs/gates.ts): L2 is skipped when L1 fails; L3 always runs, since a
 * text that is not one query can still be unsafe. Exit status: 0 when no rung fails (a skipped
 * rung does not count against it), 1 when one fails (or the input holds no SQL), 2 on bad usage
 * (unknown flag, bad value, missing database, unknown fixture or role; one line, see cli-io.ts).
 */
import { catalogAsRole } from '../engine/role-scope.js';
import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import type { Catalog, Engine, EngineName } from '../engine/engine.js';
import { isPostgresUrl, shownUrl, urlDatabase } from '../engine/postgres/postgres-url.js';
import { LadderError, isLadderError } from '../errors.js';
import { invalidValue } from '../options.js';
import { runGates } from '../rungs/gates.js';
import type { RungResult } from '../rungs/rung-result.js';
import { scoreLabelOf } from '../rungs/scores.js';
import { createLadderRuntime } from '../runtime/ladder-runtime.js';
import type { LadderRuntime } from '../runtime/ladder-runtime.js';
import { catalogFromDdl } from '../sql/catalog.js';
import { warmParserThread } from '../sql/bounded-parse.js';
import { crossProducts, DIALECTS_REQUIRING_JOIN_CONDITIONS } from '../sql/join-conditions.js';
import { DATABASE_NAMES, DIALECTS, parseSql, positionAt, type Dialect } from '../sql/parse.js';
import type { SqlNode } from '../sql/sql-tree.js';
import { readTrajectory, sqlSteps } from '../trajectory/steps.js';
import { parseProviderOutput } from '../sql/provider-output.js';
import { applyCliConventions, cliIoOf, exitCodeForError, setExitCode } from './cli-io.js';
import { checkSqliteFile } from '../fixtures/sqlite-file.js';
import { fixturesFolder, FIXTURES_OPTION_HELP, withFixturesHint, type FixturesFolder } from './fixtures-folder.js';
import { parseChoice, parseList, parsePositiveInteger } from './flags.js';
import { oneLine, truncate } from '../format.js';
import { MAX_INPUT_BYTES_ENV, maxInputBytes, readUserTextAsync } from '../files/user-file.js';

/** Parsed flags of the `check` command. */
export interface CheckCommandOptions {
  /** Database file, fixture name or postgres:// URL (SQLite: required), or DDL file (other dialects: optional). */
  readonly db?: string;
  /** Default: the database's (`postgres` for a URL or a PostgreSQL fixture), else `sqlite`. */
  readonly dialect?: Dialect;
  /** The server PostgreSQL fixtures are built on (scratch mode; default `TEXT2SQL_LADDER_POSTGRES_URL`, else a private server). */
  readonly postgresUrl?: string;
  /** Role whose scoped snapshot to check against (`--db` must then be a fixture name). */
  readonly role?: string;
  /** Folder of fixture folders a fixture name in `--db` resolves in (default: `$TEXT2SQL_LADDER_FIXTURES`, else the bundled fixtures). */
  readonly fixtures?: string;
  /** Allowed-tables policy (comma-separated on the command line). */
  readonly allowedTables?: readonly string[];
  /** LIMIT policy: largest allowed integer literal (rows). */
  readonly maxLimit?: number;
  /** Functions allowed beyond the dialect's list of pure functions (e.g. the team's UDFs). */
  readonly allowedFunctions?: readonly string[];
  /** Print one JSON object instead of text. */
  readonly json: boolean;
}

/** Where the command reads and writes (injectable for tests). */
export interface CheckCommandIo {
  readonly stdin: () => Promise<string>;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /**
   * The engine to check SQLite databases with (default: the command's own runtime creates one
   * child and closes it at the end). Tests that call the command many times pass one.
   */
  readonly engine?: Engine;
}

/** The JSON printed with `--json`. */
export interface CheckReport {
  /** True when every rung passed (skipped rungs do not count against it). */
  readonly pass: boolean;
  /** The SQL checked, or `null` when the input held none. */
  readonly sql: string | null;
  /** Why there is no SQL (the model declined or wrote prose). */
  readonly declined?: string;
  /**
   * The database the checks ran against: a file path, a PostgreSQL database name (a fixture's
   * snapshot) or URL (without its password), a DDL file; absent when none was given.
   */
  readonly db?: string;
  /** The engine the database runs on (`sqlite`, `postgres`); absent without a database. */
  readonly engine?: EngineName;
  /** The fixture `--db` named (then `db` is the path of the snapshot it resolved to). */
  readonly fixture?: string;
  readonly rungs: readonly RungResult[];
  /**
   * Things that do not fail a rung but are most likely mistakes: a `JOIN` with neither `ON` nor
   * `USING`, or a comma join in a query without WHERE, which SQLite and MySQL run as a cross product
   * (kind `cross_product`). Empty when there are none or L1 failed.
   */
  readonly warnings: readonly CheckWarning[];
}

/** One warning of {@link CheckReport}; `line` / `column` are 1-based. */
export interface CheckWarning {
  readonly kind: 'cross_product';
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/** Registers `text2sql-ladder check` on the program. */
export function registerCheckCommand(program: Command): void {
  const command = program.command('check');
  applyCliConventions(command)
    .description('Static L1 syntax, L2 schema and L3 safety checks of SQL (or model output) read from stdin')
    .option('--db <path>', 'a database file, a fixture name (e.g. warehouse, warehouse_pg; --role needs a fixture) or a postgres:// URL; other dialects (optional, for L2): a DDL .sql file')
    .option('--dialect <name>', `SQL dialect: ${DIALECTS.join(', ')} (default: the database's, else sqlite)`, parseChoice(DIALECTS))
    .option('--postgres-url <url>', 'the PostgreSQL server PostgreSQL fixtures are built on (default: $TEXT2SQL_LADDER_POSTGRES_URL, else a private server)')
    .option('--role <name>', 'run as this role of the fixture (its tables, columns and rows; L3 allows only its tables unless --allowed-tables)')
    .option('--fixtures <dir>', FIXTURES_OPTION_HELP)
    .option('--allowed-tables <list>', 'allowed-tables policy: comma-separated table names (every scope)', parseList)
    .option('--max-limit <n>', 'LIMIT policy: the outermost query needs LIMIT n with 1 <= n <= this', parsePositiveInteger)
    .option('--allowed-functions <list>', "functions L3 allows beyond the dialect's list of pure functions: comma-separated names (e.g. your UDFs)", parseList)
    .option('--json', 'print one JSON object (pass, sql, rungs) instead of text', false)
    .action(async (options: CheckCommandOptions) => {
      const io = cliIoOf(command);
      setExitCode(command, await runCheckCommand(options, { stdin: () => readStdin(io.stderr), stdout: io.stdout, stderr: io.stderr }));
    });
}

/**
 * Runs the checks. Resolves to the exit status: 0 all pass, 1 a failure or no SQL, 2 misuse.
 */
export async function runCheckCommand(options: CheckCommandOptions, io: CheckCommandIo): Promise<number> {
  // One child: the command checks one text. An app's fixtures resolve by name from --fixtures or
  // $TEXT2SQL_LADDER_FIXTURES (a bad folder is misuse, reported below).
  let folder: FixturesFolder | undefined;
  let folderError: unknown;
  try {
    folder = fixturesFolder(options.fixtures);
  } catch (error) {
    folderError = error;
  }
  const runtime: LadderRuntime = createLadderRuntime({ engine: { poolSize: 1 }, postgres: { poolSize: 1 }, ...(folder?.dir !== undefined ? { fixtures: { fixturesDir: folder.dir } } : {}) });
  // Start-up in parallel: the engine child and the parser thread boot while stdin and --db are read.
  const maybeSqlite = (options.dialect === undefined || options.dialect === 'sqlite') && !(options.db !== undefined && isPostgresUrl(options.db));
  if (maybeSqlite && io.engine === undefined) runtime.engine().warm(1);
  warmParserThread();
  try {
    // Validate the interpreted options.
    if (folderError !== undefined) throw folderError;
    if (options.dialect !== undefined && !DIALECTS.includes(options.dialect)) throw invalidValue('--dialect', `one of ${DIALECTS.join(', ')}`, options.dialect);
    if (options.postgresUrl !== undefined) {
      if (!isPostgresUrl(options.postgresUrl)) throw invalidValue('--postgres-url', 'a postgres:// or postgresql:// URL', shownUrl(options.postgresUrl));
      runtime.usePostgres({ url: options.postgresUrl });
    }
    const target = await resolveTarget(options, runtime).catch((error: unknown) => {
      throw folder === undefined ? error : withFixturesHint(error, folder);
    });
    // With --role, L3's allowed tables default to the role's.
    const allowedTables = options.allowedTables ?? (target.kind === 'database' ? target.roleTables : undefined);
    const policy = {
      ...(options.maxLimit !== undefined ? { maxLimit: options.maxLimit } : {}),
      ...(allowedTables !== undefined ? { allowedTables } : {}),
      ...(options.allowedFunctions !== undefined ? { allowedFunctions: options.allowedFunctions } : {}),
    };

    const input = await io.stdin();
    const answer = parseProviderOutput(input);
    if (answer.kind === 'declined') {
      const empty = input.trim() === '';
      const declined = empty ? 'input is empty' : answer.message === '' ? `no SQL (${answer.action})` : answer.message;
      const report: CheckReport = { pass: false, sql: null, declined, ...targetFields(target), rungs: [], warnings: [] };
      const why = empty ? 'no SQL to check: input is empty' : `no SQL to check (${answer.action}): ${truncate(oneLine(answer.message), 200) || 'no SQL in the input'}`;
      io.stdout.write(options.json ? `${JSON.stringify(report)}\n` : `${why}\n`);
      return 1;
    }
    const sql = answer.sql;
    // An agent's steps (or the legacy probes): every SQL step is judged with the answer, named by its step.
    const trajectory = readTrajectory(input, 'stdin');
    const steps = sqlSteps(trajectory).map(({ step, sql: text }) => (trajectory?.source === 'probes' ? text : { sql: text, step }));
    const probes = steps.length > 0 ? { probes: steps } : {};

    let gates;
    const dialect: Dialect = target.kind === 'database' ? target.engine : (options.dialect ?? 'sqlite');
    if (target.kind === 'database') {
      const engine = target.engine === 'sqlite' ? (io.engine ?? runtime.engine()) : await runtime.postgresEngine();
      const catalog: Catalog = await catalogAsRole(engine, target.db).catch((error: unknown) => {
        if (error instanceof LadderError && (error.code === 'db_unavailable' || error.code === 'engine_failure') && /cannot open /.test(error.message)) {
          // A file SQLite cannot open is the wrong kind of --db: misuse.
          throw new LadderError('input_invalid', `--db: ${error.message} (${DDL_HINT})`, { cause: error });
        }
        throw error;
      });
      gates = await runGates({ sql, dialect, engine, db: target.db, catalog, safetyPolicy: policy, ...probes });
    } else if (target.kind === 'ddl') {
      gates = await runGates({ sql, dialect, catalog: target.catalog, safetyPolicy: policy, ...probes });
    } else {
      gates = await runGates({ sql, dialect, schemaSkipped: target.schemaSkipped, safetyPolicy: policy, ...probes });
    }

    const rungs: RungResult[] = [gates.syntax, gates.schema, gates.safety];
    const pass = gates.failed === undefined;
    const warnings = gates.syntax.status === 'pass' ? crossProductWarnings(sql, dialect) : [];
    const report: CheckReport = { pass, sql, ...targetFields(target), rungs, warnings };
    io.stdout.write(options.json ? `${JSON.stringify(report, jsonReplacer)}\n` : formatReport(report));
    return pass ? 0 : 1;
  } catch (error) {
    return exitCodeForError(error, io);
  } finally {
    await runtime.close();
  }
}

/**
 * What `--db` resolved to: a database on an engine (`db` as the engine names it, `shown` as the
 * report prints it), a DDL catalog, or `none`: a dialect other than SQLite without a catalog (L2 is
 * skipped with `schemaSkipped`).
 */
type Target =
  | { kind: 'database'; engine: EngineName; db: string; shown: string; fixture?: string; roleTables?: readonly string[] }
  | { kind: 'ddl'; db: string; catalog: Catalog }
  | { kind: 'none'; db?: string; schemaSkipped: string };

/** The report's `db` / `engine` / `fixture` fields for a target. */
function targetFields(target: Target): Pick<CheckReport, 'db' | 'engine' | 'fixture'> {
  if (target.kind === 'database') return { db: target.shown, engine: target.engine, ...(target.fixture !== undefined ? { fixture: target.fixture } : {}) };
  return target.db !== undefined ? { db: target.db } : {};
}

/**
 * The cross products `sql` asks for without `CROSS JOIN`, in a dialect that runs them (where a
 * JOIN needs a condition, L1 already failed it). Reads the parse L1 made (parses are cached).
 */
function crossProductWarnings(sql: string, dialect: Dialect): CheckWarning[] {
  if (dialect === 'snowflake' || DIALECTS_REQUIRING_JOIN_CONDITIONS.includes(dialect)) return [];
  const parsed = parseSql(sql, dialect);
  if (!parsed.ok || parsed.kind !== 'cst') return [];
  const database = DATABASE_NAMES[dialect];
  return crossProducts(parsed.program as unknown as SqlNode, sql).map((found) => ({
    kind: 'cross_product',
    message:
      found.kind === 'join_without_condition'
        ? `${found.operator} without ON or USING: ${database} pairs every row of one side with every row of the other (write CROSS JOIN if that is meant)`
        : `comma join in a query without WHERE: ${database} pairs every row of one side with every row of the other`,
    ...positionAt(sql, found.start),
  }));
}

/** Said when a SQLite `--db` is not a database (most often a DDL file without `--dialect`). */
const DDL_HINT = 'for SQLite, --db is a database file or a fixture name; a DDL file goes with --dialect postgres|mysql|bigquery|snowflake';

/** Interprets `--db` (+ `--role`, `--dialect`). */
async function resolveTarget(options: CheckCommandOptions, runtime: LadderRuntime): Promise<Target> {
  // A postgres:// URL: a database the user loaded, read as the URL's role.
  if (options.db !== undefined && isPostgresUrl(options.db)) {
    if (options.dialect !== undefined && options.dialect !== 'postgres') throw new LadderError('invalid_option', `--dialect ${options.dialect} with a postgres:// --db: the database is PostgreSQL (drop --dialect or give postgres)`);
    if (options.role !== undefined) throw new LadderError('invalid_option', '--role needs --db to name a fixture (SQLite or PostgreSQL); a postgres:// --db is read as the URL\'s own role');
    const database = urlDatabase(options.db);
    if (database === undefined) throw invalidValue('--db', 'a postgres:// URL that names a database (postgres://user@host/shop)', shownUrl(options.db));
    runtime.usePostgres({ url: options.db, databases: 'existing' });
    return { kind: 'database', engine: 'postgres', db: database, shown: shownUrl(options.db) };
  }
  // A fixture name: its own dialect decides the engine.
  const fixtureName = options.db !== undefined && !existsSync(options.db) && !/[/\\]|\.(sqlite3?|db|sql)$/i.test(options.db) ? options.db : undefined;
  if (fixtureName !== undefined && (options.dialect === undefined || options.dialect === 'sqlite' || options.dialect === 'postgres')) {
    const fixture = await runtime.resolveFixture(fixtureName, options.role);
    if (options.dialect !== undefined && options.dialect !== fixture.dialect) {
      throw new LadderError('invalid_option', `--dialect ${options.dialect}, but fixture ${fixtureName} is a ${DATABASE_NAMES[fixture.dialect]} fixture (drop --dialect or give ${fixture.dialect})`);
    }
    const first = fixture.snapshots[0];
    if (!first) throw new LadderError('unknown_fixture', `fixture ${fixtureName} has no snapshots`);
    const roleTables = options.role === undefined ? undefined : fixture.roles[options.role]?.tables;
    return { kind: 'database', engine: fixture.dialect, db: first.path, shown: first.path, fixture: fixtureName, ...(roleTables !== undefined ? { roleTables } : {}) };
  }
  const dialect = options.dialect ?? 'sqlite';
  if (dialect !== 'sqlite') {
    if (options.role !== undefined) throw new LadderError('invalid_option', `--role needs a fixture (SQLite or PostgreSQL); dialect ${options.dialect} takes a DDL file in --db`);
    if (options.db === undefined) return { kind: 'none', schemaSkipped: 'no catalog: pass --db with a DDL file (CREATE TABLE …) to check names' };
    if (!(existsSync(options.db) && statSync(options.db).isFile())) {
      const fixtureHint = /[/\\]|\.[a-z0-9]+$/i.test(options.db) ? '' : ` (fixture names such as ${options.db} are for SQLite and PostgreSQL; dialect ${dialect} takes a DDL file)`;
      throw new LadderError('db_not_found', `--db: DDL file ${options.db} does not exist${fixtureHint}`);
    }
    if (dialect === 'snowflake') {
      return { kind: 'none', db: options.db, schemaSkipped: `Snowflake names are not checked (no scope resolution for its trees yet), so ${options.db} is not read` };
    }
    return { kind: 'ddl', db: options.db, catalog: catalogFromDdl(await readUserTextAsync(options.db, { what: 'DDL file', prefix: '--db: ' }), dialect) };
  }
  if (options.db === undefined) {
    throw new LadderError('invalid_option', "--db is required with --dialect sqlite: a database file or a fixture name (e.g. warehouse); other dialects run without it (L2 is then skipped)");
  }
  const isFile = existsSync(options.db) && statSync(options.db).isFile();
  if (options.role !== undefined && isFile) throw new LadderError('invalid_option', `--role needs --db to name a fixture (e.g. warehouse), not a database file: ${options.db}`);
  if (isFile) {
    await checkSqliteFile(options.db, '--db').catch((error: unknown) => {
      if (!isLadderError(error, 'input_invalid')) throw error;
      throw new LadderError('input_invalid', `${error.message} (${DDL_HINT})`, { cause: error });
    });
    return { kind: 'database', engine: 'sqlite', db: options.db, shown: options.db };
  }
  if (existsSync(options.db)) throw new LadderError('db_not_found', `--db: ${options.db} is not a file`);
  throw new LadderError('db_not_found', `--db: database ${options.db} does not exist (it is never created)`);
}

/** Text output: one line per rung, then its issues indented with `line:column kind message`. */
export function formatReport(report: CheckReport): string {
  let text = '';
  for (const rung of report.rungs) {
    text += `${scoreLabelOf(rung.rung).padEnd(10)} ${rung.status.padEnd(7)} ${rung.reason}\n`;
    for (const issue of rung.issues) {
      const where = issue.line !== undefined ? `${issue.line}:${issue.column ?? 1}` : '-';
      text += `  ${where.padEnd(7)} ${issue.kind.padEnd(20)} ${issue.message}\n`;
    }
  }
  for (const warning of report.warnings) text += `${'warning'.padEnd(10)} ${`${warning.line}:${warning.column}`.padEnd(7)} ${warning.kind.padEnd(20)} ${warning.message}\n`;
  text += report.pass ? 'all static checks passed\n' : 'static checks failed\n';
  return text;
}

function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * Reads all of stdin, at most the input limit of every file the user gives (files/user-file.ts);
 * on a terminal, first says on `prompt` (stderr) how to end the input.
 * @throws LadderError `input_invalid` when stdin holds more than the limit (it stops reading there).
 */
async function readStdin(prompt: { write(text: string): unknown }): Promise<string> {
  if (process.stdin.isTTY) prompt.write('reading SQL from stdin; end with Ctrl-D\n');
  const limit = maxInputBytes();
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    total += (chunk as Buffer).length;
    if (total > limit) {
      process.stdin.destroy();
      throw new LadderError('input_invalid', `stdin holds more than ${limit} bytes, the limit read from one input (${MAX_INPUT_BYTES_ENV} raises it)`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
