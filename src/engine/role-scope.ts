/**
 * Which databases are a role's view of another: a SQLite role copy (`base@support.sqlite`) of the
 * full snapshot file, or a PostgreSQL reference that runs as a role (`<database>#role=<role>`) of
 * the database itself. The fixture registry records each role-scoped snapshot it hands out; L2
 * reads the full database's catalog beside the role's, so a name that exists but is outside the
 * role fails as `not visible to role <name>` rather than as a name that does not exist.
 */
import { withHiddenNames } from '../sql/catalog.js';
import type { Catalog, DatabaseRef, Engine } from './engine.js';

/** A role-scoped database: the manifest role it belongs to and the full database it is cut from. */
export interface RoleScope {
  /** The role's name in the fixture manifest (`support_emea`). */
  readonly role: string;
  /** The same snapshot, whole (a file path or a database name, as the engine takes it). */
  readonly full: DatabaseRef;
  /**
   * The same snapshot as a read-only reader that sees every row but is not the owner: SQLite the
   * full file; PostgreSQL the fixture's all-rows role (a `USING (true)` policy). The
   * `relies_on_rls` diagnostic runs a prediction here.
   */
  readonly everyRow: DatabaseRef;
}

const scopes = new Map<DatabaseRef, RoleScope>();

/** Records that `db` is `scope.role`'s view of `scope.full` (the registry calls it). */
export function recordRoleScope(db: DatabaseRef, scope: RoleScope): void {
  scopes.set(db, scope);
}

/** The role scope of `db`, when the fixture registry handed it out as a role's snapshot. */
export function roleScopeOf(db: DatabaseRef): RoleScope | undefined {
  return scopes.get(db);
}

/**
 * The catalog L2 checks names against for `db`: `engine.catalog(db)`, and for a role's snapshot
 * annotated with what the role may not see (the whole database's catalog beside it), so a hidden
 * name fails as `not visible to role <name>`.
 * @throws whatever `engine.catalog` throws.
 */
export async function catalogAsRole(engine: Pick<Engine, 'catalog'>, db: DatabaseRef): Promise<Catalog> {
  const catalog = await engine.catalog(db);
  const scope = roleScopeOf(db);
  return scope === undefined ? catalog : withHiddenNames(catalog, await engine.catalog(scope.full), scope.role);
}
