/**
 * Spider hardness (easy / medium / hard / extra), computed as the official evaluator does: the
 * gold is read into Spider's SQL structure (process_sql.py `tokenize` + `get_sql`) and the
 * structure's components are counted (evaluation.py `count_component1`, `count_component2`,
 * `count_others`, `Evaluator.eval_hardness`).
 *
 * This is an independent re-implementation of that reading. It follows the official control flow
 * token for token, quirks included:
 * - single quotes become double quotes, and each quoted value is one token;
 * - the word tokenizer (NLTK Treebank) pads `( ) [ ] { } < > ; @ # $ % & ? !` and commas before a
 *   non-digit, then `! =`, `> =`, `< =` are joined;
 * - an aggregate over a NOT condition counts (`count_agg(sql['where'][::2])` reads `not_op` as the
 *   aggregate id), and every `and` / `or` between HAVING conditions counts as an aggregate too;
 * - only plain `JOIN` and `FROM a JOIN b ON …` shapes are understood (as in the official parser).
 *
 * Names: given the database's schema ({@link SpiderSchema}), every table and column is looked up
 * as the official reader does (`get_tables_with_alias`, `parse_table_unit`, `parse_col`), so a
 * gold it cannot read gets no hardness: a table alias written without `AS` (`FROM orders o`), a
 * column no table in scope has, an alias that is also a table's name. Without a schema the names
 * are not checked, and `FROM orders o` reads `o` as one more table.
 */

/** A Spider hardness level. */
export type Hardness = 'easy' | 'medium' | 'hard' | 'extra';

/** Every level, in the official table's order. */
export const HARDNESS_LEVELS: readonly Hardness[] = ['easy', 'medium', 'hard', 'extra'];

const CLAUSE_KEYWORDS = new Set(['select', 'from', 'where', 'group', 'order', 'limit', 'intersect', 'union', 'except']);
const JOIN_KEYWORDS = new Set(['join', 'on', 'as']);
const WHERE_OPS = new Set(['not', 'between', '=', '>', '<', '>=', '<=', '!=', 'in', 'like', 'is', 'exists']);
const UNIT_OPS = new Set(['none', '-', '+', '*', '/']);
const AGG_OPS = ['none', 'max', 'min', 'count', 'sum', 'avg'];
const SQL_OPS = new Set(['intersect', 'union', 'except']);

/** One condition: `[not] val_unit op val1 [and val2]`. */
interface CondUnit {
  readonly notOp: boolean;
  readonly op: string;
  /** Subqueries among the values (val1 / val2 that are SQL). */
  readonly nested: readonly SpiderSql[];
}
/** A condition list: units with `and` / `or` between them. */
type Condition = readonly (CondUnit | 'and' | 'or')[];
/** A value unit: one or two column units (with their aggregate ids) and an operator. */
interface ValUnit {
  readonly agg1: number;
  readonly agg2: number | null;
}

/** The parts of Spider's SQL structure that hardness reads. */
export interface SpiderSql {
  /** Aggregate id of each select item (0 = none). */
  readonly select: readonly number[];
  readonly tableUnits: number;
  readonly fromConds: Condition;
  readonly where: Condition;
  /** Aggregate id of each GROUP BY column unit. */
  readonly groupBy: readonly number[];
  readonly having: Condition;
  readonly orderBy: readonly ValUnit[];
  readonly limit: boolean;
  readonly intersect: SpiderSql | null;
  readonly union: SpiderSql | null;
  readonly except: SpiderSql | null;
}

class ParseFailure extends Error {}

/**
 * A database's names as the official evaluator reads them (evaluation.py `get_schema`): every
 * table of `sqlite_master` with `type = 'table'` (views are not read) and its columns, all
 * lower-cased.
 */
export interface SpiderSchema {
  /** Table name → its column names. */
  readonly tables: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * A {@link SpiderSchema} from table → column lists (names are lower-cased here).
 * @example spiderSchemaOf({ Singer: ['Singer_ID', 'Name'] })
 */
export function spiderSchemaOf(tables: Readonly<Record<string, readonly string[]>>): SpiderSchema {
  return { tables: new Map(Object.entries(tables).map(([table, columns]) => [table.toLowerCase(), new Set(columns.map((column) => column.toLowerCase()))])) };
}

/** The names a query may use: the schema, and `tables_with_alias` (aliases after `AS`, and every table as itself). */
interface Names {
  readonly schema: SpiderSchema;
  readonly aliases: ReadonlyMap<string, string>;
}

/** process_sql.py `get_tables_with_alias`: `x AS y` anywhere maps y → x, then every table maps to itself. */
function namesOf(schema: SpiderSchema, toks: readonly string[]): Names {
  const aliases = new Map<string, string>();
  toks.forEach((t, i) => {
    if (t === 'as') aliases.set(tok(toks, i + 1), i === 0 ? tok(toks, toks.length - 1) : toks[i - 1]!);
  });
  for (const table of schema.tables.keys()) {
    if (aliases.has(table)) throw new ParseFailure(`alias ${table} has the same name as a table`);
    aliases.set(table, table);
  }
  return { schema, aliases };
}

/**
 * Tokenizes like process_sql.py `tokenize` (lower-cased; quoted values kept whole, as `"…"`).
 * @example tokenizeSpiderSql("SELECT count(*) FROM t WHERE a >= 'x'") // ['select','count','(','*',')','from','t','where','a','>=','"x"']
 */
export function tokenizeSpiderSql(sql: string): string[] {
  const text = sql.replaceAll("'", '"');
  const quotes: number[] = [];
  for (let i = 0; i < text.length; i += 1) if (text[i] === '"') quotes.push(i);
  if (quotes.length % 2 !== 0) throw new ParseFailure('unexpected quote');
  const values = new Map<string, string>();
  let rest = text;
  for (let i = quotes.length - 1; i >= 1; i -= 2) {
    const a = quotes[i - 1]!;
    const b = quotes[i]!;
    const key = `__val_${a}_${b}__`;
    values.set(key, rest.slice(a, b + 1));
    rest = rest.slice(0, a) + key + rest.slice(b + 1);
  }
  const padded = rest
    .replace(/([()[\]{}<>;@#$%&?!])/g, ' $1 ')
    .replace(/,(?!\d)/g, ' , ')
    .replace(/(\D),/g, '$1 ,');
  const words = padded.split(/\s+/).filter((w) => w !== '').map((w) => w.toLowerCase());
  let toks = words.map((w) => values.get(w) ?? w);
  // Join `! =`, `> =`, `< =` (from the right, as the official loop does).
  for (let i = toks.length - 1; i >= 1; i -= 1) {
    if (toks[i] === '=' && ['!', '>', '<'].includes(toks[i - 1]!)) {
      toks = [...toks.slice(0, i - 1), `${toks[i - 1]}=`, ...toks.slice(i + 1)];
      i -= 1;
    }
  }
  return toks;
}

/**
 * Reads a gold query into the parts of Spider's SQL structure that hardness uses.
 * @param schema - the gold's database; when given, names are looked up as the official reader
 *   does (see the module doc), else not checked.
 * @returns the structure, or `null` when the official reader would fail on it too.
 */
export function readSpiderSql(sql: string, schema?: SpiderSchema): SpiderSql | null {
  try {
    const toks = tokenizeSpiderSql(sql);
    const [, parsed] = parseSql(toks, 0, schema === undefined ? undefined : namesOf(schema, toks));
    return parsed;
  } catch (error) {
    if (error instanceof ParseFailure || error instanceof RangeError) return null;
    throw error;
  }
}

/**
 * The official hardness of a gold query (evaluation.py `Evaluator.eval_hardness`), or `null` when
 * the query cannot be read the way the official parser reads it.
 * @param schema - the gold's database (see {@link readSpiderSql}); pass it whenever it is known:
 *   without it a table alias written without `AS` counts as one more table.
 * @example spiderHardness('SELECT count(*) FROM singer') // 'easy'
 */
export function spiderHardness(sql: string, schema?: SpiderSchema): Hardness | null {
  const parsed = readSpiderSql(sql, schema);
  return parsed === null ? null : hardnessOf(parsed);
}

/** Hardness from a read structure (evaluation.py `eval_hardness`). */
export function hardnessOf(sql: SpiderSql): Hardness {
  const c1 = countComponent1(sql);
  const c2 = countComponent2(sql);
  const others = countOthers(sql);
  if (c1 <= 1 && others === 0 && c2 === 0) return 'easy';
  if ((others <= 2 && c1 <= 1 && c2 === 0) || (c1 <= 2 && others < 2 && c2 === 0)) return 'medium';
  if ((others > 2 && c1 <= 2 && c2 === 0) || (c1 > 2 && c1 <= 3 && others <= 2 && c2 === 0) || (c1 <= 1 && others === 0 && c2 <= 1)) {
    return 'hard';
  }
  return 'extra';
}

const units = (condition: Condition): CondUnit[] => condition.filter((c): c is CondUnit => typeof c !== 'string');
const ors = (condition: Condition): number => condition.filter((c) => c === 'or').length;

function countComponent1(sql: SpiderSql): number {
  let count = 0;
  if (sql.where.length > 0) count += 1;
  if (sql.groupBy.length > 0) count += 1;
  if (sql.orderBy.length > 0) count += 1;
  if (sql.limit) count += 1;
  if (sql.tableUnits > 0) count += sql.tableUnits - 1;
  count += ors(sql.fromConds) + ors(sql.where) + ors(sql.having);
  count += [...units(sql.fromConds), ...units(sql.where), ...units(sql.having)].filter((u) => u.op === 'like').length;
  return count;
}

function countComponent2(sql: SpiderSql): number {
  let nested = 0;
  for (const unit of [...units(sql.fromConds), ...units(sql.where), ...units(sql.having)]) nested += unit.nested.length;
  if (sql.intersect) nested += 1;
  if (sql.except) nested += 1;
  if (sql.union) nested += 1;
  return nested;
}

function countOthers(sql: SpiderSql): number {
  let count = 0;
  let agg = sql.select.filter((a) => a !== 0).length;
  agg += units(sql.where).filter((u) => u.notOp).length;
  agg += sql.groupBy.filter((a) => a !== 0).length;
  agg += sql.orderBy.filter((v) => v.agg1 !== 0).length + sql.orderBy.filter((v) => v.agg2 !== null && v.agg2 !== 0).length;
  agg += sql.having.filter((item) => typeof item === 'string' || item.notOp).length;
  if (agg > 1) count += 1;
  if (sql.select.length > 1) count += 1;
  if (sql.where.length > 1) count += 1;
  if (sql.groupBy.length > 1) count += 1;
  return count;
}

// ---- The reader (process_sql.py's control flow; names checked when a schema is given) ----

function tok(toks: readonly string[], idx: number): string {
  if (idx >= toks.length || idx < 0) throw new ParseFailure(`unexpected end at token ${idx}`);
  return toks[idx]!;
}

function expect(toks: readonly string[], idx: number, value: string): void {
  if (tok(toks, idx) !== value) throw new ParseFailure(`expected ${value} at token ${idx}`);
}

/** The tables of the current FROM clause (`default_tables`), by their resolved names. */
type DefaultTables = readonly string[];

function parseCol(toks: readonly string[], idx: number, names: Names | undefined, defaults: DefaultTables): number {
  const t = tok(toks, idx);
  if (names === undefined || t === '*') return idx + 1;
  if (t.includes('.')) {
    const parts = t.split('.');
    if (parts.length !== 2) throw new ParseFailure(`bad column ${t}`);
    const table = names.aliases.get(parts[0]!);
    if (table === undefined || names.schema.tables.get(table)?.has(parts[1]!) !== true) throw new ParseFailure(`unknown column ${t}`);
    return idx + 1;
  }
  if (defaults.length === 0) throw new ParseFailure('no default tables');
  if (!defaults.some((table) => names.schema.tables.get(table)?.has(t) === true)) throw new ParseFailure(`unknown column ${t}`);
  return idx + 1;
}

function parseColUnit(toks: readonly string[], start: number, names: Names | undefined, defaults: DefaultTables): [number, number] {
  let idx = start;
  let isBlock = false;
  if (tok(toks, idx) === '(') {
    isBlock = true;
    idx += 1;
  }
  const agg = AGG_OPS.indexOf(tok(toks, idx));
  if (agg >= 0) {
    idx += 1;
    expect(toks, idx, '(');
    idx += 1;
    if (tok(toks, idx) === 'distinct') idx += 1;
    idx = parseCol(toks, idx, names, defaults);
    expect(toks, idx, ')');
    return [idx + 1, agg];
  }
  if (tok(toks, idx) === 'distinct') idx += 1;
  idx = parseCol(toks, idx, names, defaults);
  if (isBlock) {
    expect(toks, idx, ')');
    idx += 1;
  }
  return [idx, 0];
}

function parseValUnit(toks: readonly string[], start: number, names: Names | undefined, defaults: DefaultTables): [number, ValUnit] {
  let idx = start;
  let isBlock = false;
  if (tok(toks, idx) === '(') {
    isBlock = true;
    idx += 1;
  }
  let agg1: number;
  let agg2: number | null = null;
  [idx, agg1] = parseColUnit(toks, idx, names, defaults);
  if (idx < toks.length && UNIT_OPS.has(toks[idx]!)) {
    idx += 1;
    [idx, agg2] = parseColUnit(toks, idx, names, defaults);
  }
  if (isBlock) {
    expect(toks, idx, ')');
    idx += 1;
  }
  return [idx, { agg1, agg2 }];
}

/** A table unit; returns the index after it and the table's resolved name (the token itself without a schema). */
function parseTableUnit(toks: readonly string[], start: number, names: Names | undefined): [number, string] {
  const t = tok(toks, start);
  let table = t;
  if (names !== undefined) {
    const resolved = names.aliases.get(t);
    if (resolved === undefined || !names.schema.tables.has(resolved)) throw new ParseFailure(`unknown table ${t}`);
    table = resolved;
  }
  return [start + 1 < toks.length && toks[start + 1] === 'as' ? start + 3 : start + 1, table];
}

function parseValue(toks: readonly string[], start: number, names: Names | undefined, defaults: DefaultTables): [number, SpiderSql | null] {
  let idx = start;
  let isBlock = false;
  if (tok(toks, idx) === '(') {
    isBlock = true;
    idx += 1;
  }
  let nested: SpiderSql | null = null;
  const t = tok(toks, idx);
  if (t === 'select') {
    [idx, nested] = parseSql(toks, idx, names);
  } else if (t.includes('"')) {
    idx += 1;
  } else if (isPythonFloat(t)) {
    idx += 1;
  } else {
    let end = idx;
    while (end < toks.length && toks[end] !== ',' && toks[end] !== ')' && toks[end] !== 'and' && !CLAUSE_KEYWORDS.has(toks[end]!) && !JOIN_KEYWORDS.has(toks[end]!)) {
      end += 1;
    }
    parseColUnit(toks.slice(start, end), 0, names, defaults);
    idx = end;
  }
  if (isBlock) {
    expect(toks, idx, ')');
    idx += 1;
  }
  return [idx, nested];
}

function isPythonFloat(text: string): boolean {
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$|^[+-]?(inf|infinity|nan)$/i.test(text.replaceAll('_', ''));
}

function parseCondition(toks: readonly string[], start: number, names: Names | undefined, defaults: DefaultTables): [number, Condition] {
  let idx = start;
  const conds: (CondUnit | 'and' | 'or')[] = [];
  while (idx < toks.length) {
    [idx] = parseValUnit(toks, idx, names, defaults);
    let notOp = false;
    if (tok(toks, idx) === 'not') {
      notOp = true;
      idx += 1;
    }
    const op = tok(toks, idx);
    if (!WHERE_OPS.has(op)) throw new ParseFailure(`bad condition operator ${op}`);
    idx += 1;
    const nested: SpiderSql[] = [];
    let value: SpiderSql | null;
    [idx, value] = parseValue(toks, idx, names, defaults);
    if (value) nested.push(value);
    if (op === 'between') {
      expect(toks, idx, 'and');
      idx += 1;
      [idx, value] = parseValue(toks, idx, names, defaults);
      if (value) nested.push(value);
    }
    conds.push({ notOp, op, nested });
    if (idx < toks.length && (CLAUSE_KEYWORDS.has(toks[idx]!) || toks[idx] === ')' || toks[idx] === ';' || JOIN_KEYWORDS.has(toks[idx]!))) break;
    if (idx < toks.length && (toks[idx] === 'and' || toks[idx] === 'or')) {
      conds.push(toks[idx] as 'and' | 'or');
      idx += 1;
    }
  }
  return [idx, conds];
}

function parseSelect(toks: readonly string[], start: number, names: Names | undefined, defaults: DefaultTables): number[] {
  let idx = start;
  expect(toks, idx, 'select');
  idx += 1;
  if (idx < toks.length && toks[idx] === 'distinct') idx += 1;
  const aggs: number[] = [];
  while (idx < toks.length && !CLAUSE_KEYWORDS.has(toks[idx]!)) {
    let agg = 0;
    const a = AGG_OPS.indexOf(toks[idx]!);
    if (a >= 0) {
      agg = a;
      idx += 1;
    }
    [idx] = parseValUnit(toks, idx, names, defaults);
    aggs.push(agg);
    if (idx < toks.length && toks[idx] === ',') idx += 1;
  }
  return aggs;
}

function parseFrom(toks: readonly string[], start: number, names: Names | undefined): [number, number, Condition, DefaultTables] {
  const fromAt = toks.indexOf('from', start);
  if (fromAt < 0) throw new ParseFailure("'from' not found");
  let idx = fromAt + 1;
  let tableUnits = 0;
  const conds: (CondUnit | 'and' | 'or')[] = [];
  const defaults: string[] = [];
  while (idx < toks.length) {
    let isBlock = false;
    if (tok(toks, idx) === '(') {
      isBlock = true;
      idx += 1;
    }
    if (tok(toks, idx) === 'select') {
      [idx] = parseSql(toks, idx, names);
      tableUnits += 1;
    } else {
      if (toks[idx] === 'join') idx += 1;
      let table: string;
      [idx, table] = parseTableUnit(toks, idx, names);
      tableUnits += 1;
      defaults.push(table);
    }
    if (idx < toks.length && toks[idx] === 'on') {
      idx += 1;
      let these: Condition;
      [idx, these] = parseCondition(toks, idx, names, defaults);
      if (conds.length > 0) conds.push('and');
      conds.push(...these);
    }
    if (isBlock) {
      expect(toks, idx, ')');
      idx += 1;
    }
    if (idx < toks.length && (CLAUSE_KEYWORDS.has(toks[idx]!) || toks[idx] === ')' || toks[idx] === ';')) break;
  }
  return [idx, tableUnits, conds, defaults];
}

function parseSql(toks: readonly string[], start: number, names: Names | undefined): [number, SpiderSql] {
  let idx = start;
  let isBlock = false;
  if (tok(toks, idx) === '(') {
    isBlock = true;
    idx += 1;
  }
  const [fromEnd, tableUnits, fromConds, defaults] = parseFrom(toks, start, names);
  const select = parseSelect(toks, idx, names, defaults);
  idx = fromEnd;
  let where: Condition = [];
  if (idx < toks.length && toks[idx] === 'where') [idx, where] = parseCondition(toks, idx + 1, names, defaults);
  const groupBy: number[] = [];
  if (idx < toks.length && toks[idx] === 'group') {
    expect(toks, idx + 1, 'by');
    idx += 2;
    while (idx < toks.length && !(CLAUSE_KEYWORDS.has(toks[idx]!) || toks[idx] === ')' || toks[idx] === ';')) {
      let agg: number;
      [idx, agg] = parseColUnit(toks, idx, names, defaults);
      groupBy.push(agg);
      if (idx < toks.length && toks[idx] === ',') idx += 1;
      else break;
    }
  }
  let having: Condition = [];
  if (idx < toks.length && toks[idx] === 'having') [idx, having] = parseCondition(toks, idx + 1, names, defaults);
  const orderBy: ValUnit[] = [];
  if (idx < toks.length && toks[idx] === 'order') {
    expect(toks, idx + 1, 'by');
    idx += 2;
    while (idx < toks.length && !(CLAUSE_KEYWORDS.has(toks[idx]!) || toks[idx] === ')' || toks[idx] === ';')) {
      let unit: ValUnit;
      [idx, unit] = parseValUnit(toks, idx, names, defaults);
      orderBy.push(unit);
      if (idx < toks.length && (toks[idx] === 'asc' || toks[idx] === 'desc')) idx += 1;
      if (idx < toks.length && toks[idx] === ',') idx += 1;
      else break;
    }
  }
  let limit = false;
  if (idx < toks.length && toks[idx] === 'limit') {
    idx += 2;
    limit = true;
  }
  while (idx < toks.length && toks[idx] === ';') idx += 1;
  if (isBlock) {
    expect(toks, idx, ')');
    idx += 1;
  }
  while (idx < toks.length && toks[idx] === ';') idx += 1;
  const sets: { intersect: SpiderSql | null; union: SpiderSql | null; except: SpiderSql | null } = { intersect: null, union: null, except: null };
  if (idx < toks.length && SQL_OPS.has(toks[idx]!)) {
    const op = toks[idx] as 'intersect' | 'union' | 'except';
    let inner: SpiderSql;
    [idx, inner] = parseSql(toks, idx + 1, names);
    sets[op] = inner;
  }
  return [idx, { select, tableUnits, fromConds, where, groupBy, having, orderBy, limit, ...sets }];
}
