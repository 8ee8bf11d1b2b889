/**
 * The order in which the generator fills tables: every parent before its children, so that a
 * foreign key's values are drawn from rows that exist. Foreign keys inside a cycle (A → B → A) and
 * self-references (an employee's manager) cannot all point backwards; those are *deferred*: filled
 * after every table has its rows, from the rows the parent then has.
 *
 * Strongly connected components by Tarjan's algorithm ("Depth-first search and linear graph
 * algorithms", SIAM J. Computing 1972) over child → parent edges; Tarjan emits a component after
 * every component it reaches, which is exactly parents first. Tables and edges are visited in
 * schema order, so the order is deterministic.
 */
import type { DatabaseSchema, ForeignKey } from '../model/schema-reader.js';

/** A foreign key filled after all tables. */
export interface DeferredForeignKey {
  readonly table: string;
  /** Index into the table's `foreignKeys`. */
  readonly index: number;
  readonly foreignKey: ForeignKey;
}

/** Table fill order and the foreign keys filled last. */
export interface FillOrder {
  /** Table names, parents first. */
  readonly tables: readonly string[];
  readonly deferred: readonly DeferredForeignKey[];
}

/**
 * Computes the fill order of a schema.
 * @example
 * // customers ← orders ← order_items, employees.manager_id → employees
 * computeFillOrder(schema) // { tables: ['customers', 'employees', 'orders', 'order_items'], deferred: [employees.manager_id] }
 */
export function computeFillOrder(schema: DatabaseSchema): FillOrder {
  const names = schema.tables.map((t) => t.name);
  const indexOf = new Map(names.map((name, i) => [name, i]));
  const edges = schema.tables.map((t) => t.foreignKeys.map((fk) => indexOf.get(fk.parentTable)!).filter((p) => p !== undefined));

  // Tarjan's strongly connected components, iteratively (no recursion limit on wide schemas).
  const index = new Array<number>(names.length).fill(-1);
  const low = new Array<number>(names.length).fill(0);
  const onStack = new Array<boolean>(names.length).fill(false);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  for (let root = 0; root < names.length; root += 1) {
    if (index[root] !== -1) continue;
    const work: { node: number; edge: number }[] = [{ node: root, edge: 0 }];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = true;
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const out = edges[frame.node]!;
      if (frame.edge < out.length) {
        const next = out[frame.edge]!;
        frame.edge += 1;
        if (index[next] === -1) {
          index[next] = low[next] = counter++;
          stack.push(next);
          onStack[next] = true;
          work.push({ node: next, edge: 0 });
        } else if (onStack[next]) {
          low[frame.node] = Math.min(low[frame.node]!, index[next]!);
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low[parent.node] = Math.min(low[parent.node]!, low[frame.node]!);
      if (low[frame.node] === index[frame.node]) {
        const component: number[] = [];
        let member: number;
        do {
          member = stack.pop()!;
          onStack[member] = false;
          component.push(member);
        } while (member !== frame.node);
        components.push(component.sort((a, b) => a - b));
      }
    }
  }

  const order = components.flat();
  const position = new Map(order.map((table, i) => [table, i]));
  const deferred: DeferredForeignKey[] = [];
  schema.tables.forEach((table, t) => {
    table.foreignKeys.forEach((fk, i) => {
      const parent = indexOf.get(fk.parentTable);
      if (parent === undefined) return;
      if (parent === t || position.get(parent)! > position.get(t)!) deferred.push({ table: table.name, index: i, foreignKey: fk });
    });
  });
  return { tables: order.map((i) => names[i]!), deferred };
}
