/**
 * A database reference that runs as a role: `<database>#role=<server role>`. A role-scoped
 * snapshot of a PostgreSQL fixture is named so (fixtures/registry.ts), and the engine runs every
 * statement on `<database>` under `SET LOCAL ROLE <server role>` (postgres-engine.ts). The ladder's
 * own database names never hold `#`, and a server role name here is lower-case letters, digits and
 * `_` only (fixtures/postgres-roles.ts makes them so).
 */

const SEPARATOR = '#role=';
const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** `ladder_shop_…_base` and `ladder_shop_r_eu` → `ladder_shop_…_base#role=ladder_shop_r_eu`. */
export function roleDatabaseRef(database: string, role: string): string {
  return `${database}${SEPARATOR}${role}`;
}

/** The database and the role of a reference; `role` is absent for a plain database name. */
export function splitDatabaseRef(ref: string): { readonly database: string; readonly role?: string } {
  const at = ref.lastIndexOf(SEPARATOR);
  if (at <= 0) return { database: ref };
  const role = ref.slice(at + SEPARATOR.length);
  return ROLE_NAME.test(role) ? { database: ref.slice(0, at), role } : { database: ref };
}
