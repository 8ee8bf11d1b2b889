/**
 * Helpers for the matcher tests: a small fixture database built in a temporary folder, and a way
 * to read a failing assertion's message as plain text (colours stripped) for inline snapshots.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import Database from 'better-sqlite3';

/** The `shop` fixture: customers and orders, small enough to read every row in a snapshot. */
export const SHOP_SCRIPT = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers (id),
  total REAL NOT NULL, ordered_at TEXT NOT NULL);
INSERT INTO customers VALUES (1, 'Ada', 'London'), (2, 'Grace', 'New York'), (3, 'Linus', 'Helsinki'),
  (4, 'Margaret', 'Boston');
INSERT INTO orders VALUES (1, 1, 120.5, '2024-01-03'), (2, 1, 80.0, '2024-02-11'), (3, 2, 300.0, '2024-02-15'),
  (4, 3, 45.25, '2024-03-01'), (5, 2, 150.0, '2024-03-09');
`;

/** A temporary folder holding fixture databases; `remove()` deletes it. */
export interface FixtureFolder {
  readonly dir: string;
  /** Builds `<name>.sqlite` from a SQL script and returns its path. */
  build(name: string, script: string): string;
  remove(): void;
}

/** Creates a temporary folder for fixture databases. */
export function createFixtureFolder(): FixtureFolder {
  const dir = mkdtempSync(join(tmpdir(), 'ladder-matchers-'));
  return {
    dir,
    build(name, script) {
      const path = join(dir, `${name}.sqlite`);
      const db = new Database(path);
      try {
        db.exec(script);
      } finally {
        db.close();
      }
      return path;
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs an assertion that must fail and returns its message without colours.
 * @throws Error when the assertion passes.
 */
export async function failureOf(assertion: () => unknown): Promise<string> {
  try {
    await assertion();
  } catch (error) {
    return stripVTControlCharacters(error instanceof Error ? error.message : String(error));
  }
  throw new Error('expected the assertion to fail, but it passed');
}

/** Replaces every occurrence of `path` in `text` with `<name>` so that snapshots do not hold temp paths. */
export function redactPath(text: string, path: string, name: string): string {
  return text.split(path).join(`<${name}>`);
}
