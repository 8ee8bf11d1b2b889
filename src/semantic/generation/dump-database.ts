/**
 * A database as SQL text: its schema (tables, indexes, views, in `sqlite_schema` order) and one
 * `INSERT` per row, values written so that they come back with the same storage class (`5`,
 * `5.0`, `'5'`, `X'05'`). Used to show a distinguishing database to a person and to replay it in
 * another SQLite (the stock Python `sqlite3` module), where the file itself may not be at hand.
 * Triggers are left out, as the generator never copies them. The script starts with
 * `PRAGMA foreign_keys = OFF` because rows come table by table (a cycle needs a later row).
 */
import { scratch } from '../scratch/scratch-engine.js';
import { fromSafeIntegerCell, sqlLiteralOf } from '../model/gen-value.js';
import { quoteIdentifier } from '../../sql/identifiers.js';

/** Options of {@link dumpDatabase}. */
export interface DumpOptions {
  /** Only these tables' rows (all tables' schema is always written). Default: every table. */
  readonly tables?: readonly string[];
  /** Most rows written per table (default: all). */
  readonly maxRowsPerTable?: number;
}

/**
 * Dumps a database file as a SQL script.
 * @param file - an existing SQLite file, opened read-only.
 * @returns statements separated by `;\n`, ending with a newline.
 * @example
 * dumpDatabase('gen-0003.sqlite')
 * // CREATE TABLE orders (…);
 * // INSERT INTO "orders" ("order_id", "amount") VALUES (1, 12.5);
 */
export function dumpDatabase(file: string, options: DumpOptions = {}): string {
  const db = scratch.open(file);
  try {
    const objects = db
      .prepare("SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND type IN ('table', 'index', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
      .records() as { type: string; name: string; sql: string }[];
    const wanted = options.tables?.map((t) => t.toLowerCase());
    // Rows come table by table, so a foreign key may point at a row inserted later (cycles).
    const lines: string[] = ['PRAGMA foreign_keys = OFF;'];
    const tables = objects.filter((o) => o.type === 'table');
    for (const table of tables) lines.push(`${table.sql};`);
    for (const table of tables) {
      if (wanted !== undefined && !wanted.includes(table.name.toLowerCase())) continue;
      const columns = (db.prepare('SELECT name FROM pragma_table_xinfo(?) WHERE hidden NOT IN (2, 3) ORDER BY cid').column(table.name) as string[]);
      const limit = options.maxRowsPerTable === undefined ? '' : ` LIMIT ${options.maxRowsPerTable}`;
      const withoutRowid = (db.prepare("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?").value(table.name) as bigint | number) == 1;
      const rows = db.prepare(`SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${quoteIdentifier(table.name)}${withoutRowid ? '' : ' ORDER BY rowid'}${limit}`).rows() as unknown[][];
      for (const row of rows) {
        lines.push(`INSERT INTO ${quoteIdentifier(table.name)} (${columns.map(quoteIdentifier).join(', ')}) VALUES (${row.map((v) => sqlLiteralOf(fromSafeIntegerCell(v))).join(', ')});`);
      }
    }
    for (const object of objects) if (object.type !== 'table') lines.push(`${object.sql};`);
    return `${lines.join('\n')}\n`;
  } finally {
    db.close();
  }
}
