/**
 * The raw floor of the Spider benches: one Node process, better-sqlite3 directly, read-only
 * connections cached per database, `prepare().raw().all()` on each gold and each prediction — no
 * comparison, no children, no deadline. With the engine's legacy double-quote retry (the same
 * rewrite functions), so both sides execute the same statements.
 *
 *   node dist/bench/raw-floor.js GOLD_FILE PRED_FILE DB_DIR   → prints {"statements","ok"}
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { missingColumnName, restoreResolvingIdentifiers, rewriteDoubleQuoted } from '../src/engine/sqlite/double-quote-fallback.js';

/** Prepares `sql`, rewriting double-quoted tokens that name no column as the engine's legacy mode does. */
function prepareLegacy(connection: Database.Database, sql: string): Database.Statement {
  let text = sql;
  for (let round = 0; ; round += 1) {
    try {
      const statement = connection.prepare(text);
      if (text === sql) return statement;
      const exact = restoreResolvingIdentifiers(sql, text, (candidate) => {
        try {
          connection.prepare(candidate);
          return true;
        } catch {
          return false;
        }
      });
      return exact === text ? statement : connection.prepare(exact);
    } catch (error) {
      const name = round < 256 ? missingColumnName(error instanceof Error ? error.message : String(error)) : undefined;
      const rewritten = name === undefined ? undefined : rewriteDoubleQuoted(text, name);
      if (rewritten === undefined) throw error;
      text = rewritten;
    }
  }
}

const [goldFile, predFile, dbDir] = process.argv.slice(2) as [string, string, string];
const gold = readFileSync(goldFile, 'utf8').split('\n').filter((line) => line.trim() !== '');
const predicted = readFileSync(predFile, 'utf8').split('\n');
const connections = new Map<string, Database.Database>();
let statements = 0;
let ok = 0;
gold.forEach((line, i) => {
  const tab = line.lastIndexOf('\t');
  const dbId = line.slice(tab + 1).trim();
  let connection = connections.get(dbId);
  if (!connection) {
    connection = new Database(path.join(dbDir, dbId, `${dbId}.sqlite`), { readonly: true, fileMustExist: true });
    connections.set(dbId, connection);
  }
  for (const sql of [line.slice(0, tab), predicted[i] ?? '']) {
    statements += 1;
    try {
      prepareLegacy(connection, sql).raw(true).all();
      ok += 1;
    } catch {
      // Not executed (as the engine's syntax_error, unknown_column, … codes).
    }
  }
});
process.stdout.write(JSON.stringify({ statements, ok }));
