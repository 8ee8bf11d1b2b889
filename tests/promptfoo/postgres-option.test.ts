/**
 * `config.postgres` of the promptfoo assertions and an item's dialect on a PostgreSQL fixture
 * (no server: the options are read before anything connects).
 */
import { describe, expect, it } from 'vitest';
import { readPostgresOption } from '../../src/promptfoo/config.js';
import { itemDialect } from '../../src/promptfoo/item.js';

function message(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  return '(no error)';
}

describe('config.postgres', () => {
  it('reads a URL; absent is undefined', () => {
    expect(readPostgresOption(undefined)).toBeUndefined();
    expect(readPostgresOption({ postgres: { url: 'postgresql://ladder:pw@db/postgres' } })).toEqual({ url: 'postgresql://ladder:pw@db/postgres' });
    expect(readPostgresOption({ postgres: { url: 'postgres://ladder@db/postgres', databases: 'scratch' } })).toEqual({ url: 'postgres://ladder@db/postgres', databases: 'scratch' });
  });

  it('names the key and never shows a password', () => {
    expect(message(() => readPostgresOption({ postgres: { url: 'mysql://root:hunter2@db/x' } }))).toBe('config.postgres.url must be a postgres:// or postgresql:// URL; received a string ("mysql://root:***@db/x")');
    expect(message(() => readPostgresOption({ postgres: { DATABASE_URL: 'postgres://a@b/c' } }))).toMatch(/^config\.postgres\.DATABASE_URL is not an option \(did you mean config\.postgres\.url\?\)/);
    expect(message(() => readPostgresOption({ postgres: 'postgres://a@b/c' }))).toMatch(/^config\.postgres must be \{ url \}/);
  });

  it('refuses databases: existing, which cannot build the items\' fixtures', () => {
    expect(message(() => readPostgresOption({ postgres: { url: 'postgres://a@b/c', databases: 'existing' } }))).toMatch(
      /^config\.postgres\.databases must be scratch \(the default\): the items' fixtures are built on the server, which databases: existing forbids; to check SQL against a database you loaded, use `check --db postgres:\/\/…` or a matcher's db; received a string \("existing"\)/,
    );
    expect(message(() => readPostgresOption({ postgres: { databases: 'scratch' } }))).toMatch(/^config\.postgres\.databases must be absent unless url is given/);
  });
});

describe('itemDialect', () => {
  const item = { id: 'wh-001', db: 'warehouse_pg', engine: 'postgres' as const };
  it('an item on a PostgreSQL fixture runs as postgres; config.dialect may only repeat it', () => {
    expect(itemDialect(item, { dialect: 'sqlite', explicitDialect: undefined })).toBe('postgres');
    expect(itemDialect(item, { dialect: 'postgres', explicitDialect: 'postgres' })).toBe('postgres');
    expect(message(() => itemDialect(item, { dialect: 'sqlite', explicitDialect: 'sqlite' }))).toBe(
      'config.dialect is sqlite, but item wh-001 runs on fixture warehouse_pg, a PostgreSQL fixture (dialect: postgres in its manifest): remove config.dialect or set it to postgres',
    );
    expect(itemDialect({ id: 'x', db: 'warehouse', engine: 'sqlite' }, { dialect: 'mysql', explicitDialect: 'mysql' })).toBe('mysql');
  });
});
