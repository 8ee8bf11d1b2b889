import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const script = fileURLToPath(new URL('../db/shop.sql', import.meta.url));
/** Where the tests find the fixture (see tests/shop.ts). */
const target = fileURLToPath(new URL('../db/shop.sqlite', import.meta.url));

/** Builds db/shop.sqlite from db/shop.sql once per run; the ladder opens it read-only. */
export default function setup(): void {
  rmSync(target, { force: true });
  const db = new Database(target);
  try {
    db.exec(readFileSync(script, 'utf8'));
  } finally {
    db.close();
  }
}
