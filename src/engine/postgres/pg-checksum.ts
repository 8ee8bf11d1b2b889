/**
 * The content checksum of a PostgreSQL database: `sha256:` over a canonical dump of its schema and
 * data, computed on the server (no `pg_dump` needed, so it works on any server the ladder reaches):
 * - the database: its encoding, collation (provider, locale) and its own settings (`search_path`),
 *   which change what queries return;
 * - schema: one line per schema, relation (kind, row-level security, grants), column (type,
 *   NOT NULL, default, collation), constraint, index, view definition, function definition, type
 *   (enum labels), trigger and policy of the non-system schemas, sorted;
 * - data: per table and materialized view, its row count and the sum of a 64-bit hash of each row's
 *   text (an order-free multiset digest), under fixed print settings.
 * Two databases with the same checksum hold the same objects and the same rows.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';

const USER_SCHEMA = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'";

const SCHEMA_LINES = `SELECT line FROM (
  SELECT format('database encoding=%s collate=%s ctype=%s provider=%s icu=%s', pg_encoding_to_char(d.encoding), d.datcollate, d.datctype, d.datlocprovider, d.daticulocale) AS line FROM pg_database d WHERE d.datname = current_database()
  UNION ALL SELECT format('settings role=%s %s', s.setrole, s.setconfig::text) FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = current_database()
  UNION ALL SELECT format('schema %s', n.nspname) FROM pg_namespace n WHERE ${USER_SCHEMA}
  UNION ALL SELECT format('rel %I.%I kind=%s rls=%s force=%s acl=%s', n.nspname, c.relname, c.relkind, c.relrowsecurity, c.relforcerowsecurity, c.relacl::text)
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_SCHEMA} AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
  UNION ALL SELECT format('col %I.%I %s %I %s notnull=%s default=%s collation=%s', n.nspname, c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid), co.collname)
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum LEFT JOIN pg_collation co ON co.oid = a.attcollation
    WHERE ${USER_SCHEMA} AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL SELECT format('con %I.%I %I %s', n.nspname, c.relname, k.conname, pg_get_constraintdef(k.oid))
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_SCHEMA}
  UNION ALL SELECT format('idx %s', pg_get_indexdef(i.indexrelid))
    FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_SCHEMA}
  UNION ALL SELECT format('view %I.%I %s', n.nspname, c.relname, pg_get_viewdef(c.oid))
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_SCHEMA} AND c.relkind IN ('v', 'm')
  UNION ALL SELECT format('fn %s', pg_get_functiondef(p.oid))
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${USER_SCHEMA} AND p.prokind IN ('f', 'p')
  UNION ALL SELECT format('type %I.%I %s %s', n.nspname, t.typname, t.typtype, (SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid))
    FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE ${USER_SCHEMA} AND t.typtype IN ('e', 'd', 'r')
  UNION ALL SELECT format('trigger %s', pg_get_triggerdef(g.oid))
    FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_SCHEMA} AND NOT g.tgisinternal
  UNION ALL SELECT format('policy %I.%I %I %s %s %s %s %s', p.schemaname, p.tablename, p.policyname, p.permissive, p.roles::text, p.cmd, p.qual, p.with_check) FROM pg_policies p
) lines`;

const TABLES = `SELECT format('%I.%I', n.nspname, c.relname) AS name, c.relkind::text AS kind
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_SCHEMA} AND c.relkind IN ('r', 'm')`;

/** Fixed print settings, so row texts and definitions (names qualified: no search_path) do not depend on the session. */
const PRINT_SETTINGS = "SET DateStyle = 'ISO, YMD'; SET TimeZone = 'UTC'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 3; SET bytea_output = 'hex'; SET search_path = pg_catalog";

/**
 * The checksum of the database `client` is connected to (see the module doc).
 * @returns `sha256:<hex>`.
 * @throws the server's error when a relation cannot be read by the connection's role.
 */
export async function databaseChecksum(client: pg.Client): Promise<string> {
  await client.query(PRINT_SETTINGS);
  const hash = createHash('sha256');
  // Sorted here, by UTF-16 code units: the same order whatever the database's collation.
  const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  for (const line of (await client.query<{ line: string }>(SCHEMA_LINES)).rows.map((row) => row.line).sort(byText)) hash.update(`${line}\n`);
  for (const table of (await client.query<{ name: string; kind: string }>(TABLES)).rows.sort((a, b) => byText(a.name, b.name))) {
    const from = table.kind === 'm' ? table.name : `ONLY ${table.name}`;
    const digest = (
      await client.query<{ n: string; sum: string }>(`SELECT count(*)::text AS n, coalesce(sum(('x' || left(md5(t::text), 16))::bit(64)::bigint::numeric), 0)::text AS sum FROM ${from} AS t`)
    ).rows[0]!;
    hash.update(`data ${table.name} ${digest.n} ${digest.sum}\n`);
  }
  return `sha256:${hash.digest('hex')}`;
}
