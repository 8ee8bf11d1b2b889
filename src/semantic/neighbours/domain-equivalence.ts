/**
 * Equivalence of a comparison and its neighbour over a column's declared finite domain.
 *
 * When a fixture declares that `orders.status` only holds `COMPLETED`, `SHIPPED`, `PENDING` and
 * `CANCELLED`, then `status <> 'CANCELLED'` and `status > 'CANCELLED'` select the same rows on
 * every database the fixture can hold: no database can tell them apart, and a prediction writing
 * either is right. Such neighbours are left out of suites instead of being reported as
 * never-distinguished.
 *
 * Decided exactly: both comparisons are evaluated, three-valued (true / false / NULL), for every
 * domain value (and NULL when the column may be NULL) by SQLite itself on an in-memory database.
 * Only comparisons whose other side is made of literals are considered (`col op literal`,
 * `col [NOT] IN (literals)`, `col [NOT] LIKE literal`, `col [NOT] BETWEEN literal AND literal`),
 * and the evaluated text is rebuilt from those tokens alone, so no gold text other than operators
 * and literals is ever executed here.
 */
import { scratch } from '../scratch/scratch-engine.js';
import type { GenValue } from '../model/gen-value.js';
import { mergeOperators } from '../model/gold-literals.js';
import { tokenizeSqlite, type SqliteToken } from '../../sql/sqlite-lexer.js';

/** A comparison `column <operator and literals>` of the gold. */
export interface DomainComparison {
  /** 0-based `[start, end)` of the whole comparison in the gold. */
  readonly start: number;
  readonly end: number;
  /** `[start, end)` of the column reference inside it. */
  readonly columnStart: number;
  readonly columnEnd: number;
  /**
   * The column's possible values (NULL included when it may be NULL), or a date / timestamp
   * format: every valid 'YYYY-MM-DD' (or 'YYYY-MM-DD HH:MM:SS') text, plus NULL when `nullable`.
   */
  readonly domain: readonly GenValue[] | { readonly format: 'date' | 'timestamp'; readonly nullable: boolean };
}

const ALLOWED_WORDS = new Set(['not', 'like', 'glob', 'in', 'between', 'and', 'is', 'null', 'escape', 'collate', 'nocase', 'rtrim', 'binary']);

/**
 * Decides whether an edit of the gold leaves a comparison's truth unchanged over the column's domain.
 *
 * @param gold - the gold text.
 * @param comparison - where the comparison and its column are, and the column's domain.
 * @param edit - the neighbour's single edit (must lie inside the comparison, outside the column).
 * @returns true when the edited comparison is true, false and NULL for exactly the same domain values.
 */
export function equivalentOverDomain(gold: string, comparison: DomainComparison, edit: { start: number; end: number; replacement: string }): boolean {
  if (comparison.columnStart !== comparison.start) return false;
  if (edit.start < comparison.start || edit.end > comparison.end) return false;
  if (edit.start < comparison.columnEnd && edit.end > comparison.columnStart) return false;
  if (edit.start >= comparison.columnStart && edit.start < comparison.columnEnd) return false;
  const rest = gold.slice(comparison.columnEnd, comparison.end);
  const editedRest = rest.slice(0, edit.start - comparison.columnEnd) + edit.replacement + rest.slice(edit.end - comparison.columnEnd);
  const original = safeTail(rest);
  const edited = safeTail(editedRest);
  if (original === null || edited === null) return false;
  if (Array.isArray(comparison.domain)) return sameTruth(original, edited, comparison.domain);
  const { format, nullable } = comparison.domain as { format: 'date' | 'timestamp'; nullable: boolean };
  // LIKE / GLOB split the domain in ways boundaries do not capture.
  if (/\b(like|glob)\b/i.test(`${original} ${edited}`)) return false;
  return sameTruth(original, edited, [...formatSamples(`${rest} ${editedRest}`, format), ...(nullable ? [null] : [])]);
}

/** 0001-01-01T00:00:00Z and 9999-12-31T00:00:00Z in ms (Date.UTC maps years 0–99 to 1900–1999, so set the year). */
const FIRST_MS = utcMidnight(1, 0, 1);
const LAST_MS = utcMidnight(9999, 11, 31);
const DAYS = (LAST_MS - FIRST_MS) / 86_400_000;

function utcMidnight(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime();
}

/** The `unit`-th valid value: days (date) or seconds (timestamp) since 0001-01-01. */
function formatUnit(format: 'date' | 'timestamp', unit: number): string {
  const iso = new Date(FIRST_MS + unit * (format === 'date' ? 86_400_000 : 1000)).toISOString();
  return format === 'date' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/**
 * Valid values next to every string literal of the comparisons: a comparison with string literals
 * (`=`, `<`, `BETWEEN`, `IN`, …) changes truth over formatted dates only where a literal falls, and
 * formatted dates sort as text in time order, so the values just below and above each literal
 * (found by binary search) and the first and last values decide equivalence.
 */
function formatSamples(text: string, format: 'date' | 'timestamp'): string[] {
  const last = format === 'date' ? DAYS : DAYS * 86_400 + 86_399;
  const samples = new Set<string>([formatUnit(format, 0), formatUnit(format, last)]);
  for (const token of tokenizeSqlite(text)) {
    if (token.kind !== 'string' && token.kind !== 'double_quoted') continue;
    let lo = 0;
    let hi = last + 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (formatUnit(format, mid) < token.value) lo = mid + 1;
      else hi = mid;
    }
    for (const unit of [lo - 1, lo, lo + 1]) if (unit >= 0 && unit <= last) samples.add(formatUnit(format, unit));
  }
  return [...samples];
}

/** The tail (operator and literals) re-emitted from tokens, or null when it holds anything else. */
function safeTail(text: string): string | null {
  const tokens = mergeOperators(tokenizeSqlite(text));
  if (tokens.length === 0) return null;
  const parts: string[] = [];
  for (const token of tokens) {
    if (!isAllowed(token)) return null;
    parts.push(render(token));
  }
  return parts.join(' ');
}

function isAllowed(token: SqliteToken): boolean {
  switch (token.kind) {
    case 'word':
      return ALLOWED_WORDS.has(token.value.toLowerCase());
    case 'string':
    case 'number':
    case 'double_quoted':
      return true;
    case 'punctuation':
      return ['=', '==', '!=', '<>', '<', '>', '<=', '>=', '(', ')', ',', '-', '+'].includes(token.value);
    default:
      return false;
  }
}

function render(token: SqliteToken): string {
  if (token.kind === 'string' || token.kind === 'double_quoted') return `'${token.value.replaceAll("'", "''")}'`;
  return token.value;
}

const memory = new Map<string, boolean>();

function sameTruth(original: string, edited: string, domain: readonly GenValue[]): boolean {
  const key = `${original}\u0000${edited}\u0000${domain.map((v) => `${typeof v}:${String(v)}`).join('\u0001')}`;
  const known = memory.get(key);
  if (known !== undefined) return known;
  const db = scratch.create();
  let result = false;
  try {
    const a = db.prepare(`SELECT (? ${original})`);
    const b = db.prepare(`SELECT (? ${edited})`);
    result = domain.every((value) => {
      const bound = value instanceof Uint8Array ? Buffer.from(value) : value;
      return String(a.value(bound)) === String(b.value(bound));
    });
  } catch {
    result = false;
  } finally {
    db.close();
  }
  if (memory.size > 10_000) memory.clear();
  memory.set(key, result);
  return result;
}
