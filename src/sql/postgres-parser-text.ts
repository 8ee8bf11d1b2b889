/**
 * The text handed to sql-parser-cst for PostgreSQL, so that it reads two forms PostgreSQL accepts
 * and its postgresql grammar rejects (measured with sql-parser-cst 0.42.1):
 * - an ordered-set aggregate, `percentile_cont(0.5) WITHIN GROUP (ORDER BY amount)`: read as the
 *   aggregate with its ORDER BY inside, `percentile_cont(0.5 ORDER BY amount)`;
 * - a typed literal of a type the grammar does not list, `timestamptz '2024-01-01'`,
 *   `timestamp with time zone '…'`, `numeric '1.5'`: read as `timestamp '…'` (same kind of value),
 *   or as the bare string for the other types.
 * Each rewrite replaces characters by spaces (or a shorter type name padded with spaces), one
 * UTF-16 unit for one, so every source range the parser reports still points into the original
 * text. Strings, quoted names and comments are never changed. The database (PostgreSQL's own parse
 * and describe) stays the authority on what is valid; this only lets the AST layer read more.
 */
import { tokenizePostgres, type PostgresToken } from './postgres-lexer.js';

/** Type names whose literal (`name '…'`) the grammar reads as a timestamp or a time. */
const TEMPORAL_TYPES: Readonly<Record<string, string>> = { timestamptz: 'timestamp', timetz: 'time' };
/** Other type names a typed literal may carry; the literal is read as its string. */
const OTHER_TYPES = new Set(['numeric', 'decimal', 'int', 'int2', 'int4', 'int8', 'integer', 'bigint', 'smallint', 'real', 'float4', 'float8', 'text', 'varchar', 'json', 'jsonb', 'uuid', 'bool', 'boolean', 'bytea', 'inet', 'cidr', 'money']);

function isWord(token: PostgresToken | undefined, word: string): boolean {
  return token?.kind === 'word' && token.value.toLowerCase() === word;
}

function isPunctuation(token: PostgresToken | undefined, value: string): boolean {
  return token?.kind === 'punctuation' && token.value === value;
}

/**
 * Rewrites the two forms above; returns `sql` itself when it holds neither.
 * @example postgresParserText("SELECT mode() WITHIN GROUP (ORDER BY a) FROM t") // 'SELECT mode(                ORDER BY a) FROM t'
 */
export function postgresParserText(sql: string): string {
  if (!/within|timestamp|timetz|'/i.test(sql)) return sql;
  const tokens = tokenizePostgres(sql);
  const out = sql.split('');
  let changed = false;
  const blank = (from: number, to: number): void => {
    for (let i = from; i < to; i += 1) out[i] = ' ';
    changed = true;
  };
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    // `) WITHIN GROUP (`: the call's `)` and `WITHIN GROUP (` go; the group's `)` closes the call.
    if (isPunctuation(token, ')') && isWord(tokens[i + 1], 'within') && isWord(tokens[i + 2], 'group') && isPunctuation(tokens[i + 3], '(')) {
      blank(token.start, tokens[i + 3]!.end);
      i += 3;
      continue;
    }
    if (token.kind !== 'word' || isPunctuation(tokens[i - 1], '.')) continue;
    const word = token.value.toLowerCase();
    // `timestamp with time zone '…'` / `time without time zone '…'`
    if ((word === 'timestamp' || word === 'time') && (isWord(tokens[i + 1], 'with') || isWord(tokens[i + 1], 'without')) && isWord(tokens[i + 2], 'time') && isWord(tokens[i + 3], 'zone') && tokens[i + 4]?.kind === 'string') {
      blank(token.end, tokens[i + 3]!.end);
      i += 3;
      continue;
    }
    if (tokens[i + 1]?.kind !== 'string' || tokens[i + 1]!.value === undefined) continue;
    const temporal = TEMPORAL_TYPES[word];
    if (temporal !== undefined) {
      blank(token.start, token.end);
      for (let k = 0; k < temporal.length; k += 1) out[token.start + k] = temporal[k]!;
    } else if (OTHER_TYPES.has(word) && sql[tokens[i + 1]!.start] === "'") {
      blank(token.start, token.end);
    }
  }
  return changed ? out.join('') : sql;
}
