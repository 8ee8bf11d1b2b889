/**
 * A gold constant and the values next to it, in a column's kind: integers ±1, reals ±0.1 and ±1,
 * dates ±1 day and the first / last day of a compared year or month, timestamps ±1 second and the
 * ends of a compared day, strings in other cases and near-duplicates, strings that do and do not
 * match a LIKE / GLOB pattern. A row that sits on or next to a constant is where a wrong
 * comparison (`>` for `>=`, a missed case) shows.
 */
import { numericValue, round, type GenValue } from '../model/gen-value.js';
import type { GoldLiteral } from '../model/gold-literals.js';
import { dateOfDay, dayNumber, isDate, isTime, isTimestamp, type ValueKind } from '../model/value-kind.js';

/**
 * A gold constant and its neighbours, in the column's kind.
 * @example constantsFor({ value: 30n, operator: '>', … }, 'integer') // [29n, 30n, 31n]
 */
export function constantsFor(literal: Pick<GoldLiteral, 'value' | 'operator'>, kind: ValueKind): GenValue[] {
  const value = literal.value;
  const like = literal.operator === 'like' || literal.operator === 'not like';
  const glob = literal.operator === 'glob' || literal.operator === 'not glob';
  switch (kind) {
    case 'integer': {
      const n = typeof value === 'string' ? Number(value.trim()) : numericValue(value);
      if (n === undefined || !Number.isFinite(n)) return [];
      const base = Number.isInteger(n) ? [n - 1, n, n + 1] : [Math.floor(n), Math.ceil(n), Math.floor(n) - 1, Math.ceil(n) + 1];
      return base.filter(Number.isSafeInteger).map((x) => BigInt(x));
    }
    case 'real': {
      const n = typeof value === 'string' ? Number(value.trim()) : numericValue(value);
      if (n === undefined || !Number.isFinite(n) || (typeof value === 'string' && value.trim() === '')) return [];
      return [n, round(n - 0.1, 6), round(n + 0.1, 6), n - 1, n + 1];
    }
    case 'date':
    case 'timestamp': {
      if (typeof value !== 'string' && typeof value !== 'bigint') return [];
      const text = String(value);
      const days = dateConstants(text);
      if (kind === 'date') return days.map(dateOfDay);
      if (isTimestamp(text)) {
        const seconds = Date.parse(`${text.replace(' ', 'T')}Z`) / 1000;
        return [seconds - 1, seconds, seconds + 1].map(formatTimestamp);
      }
      return days.flatMap((d) => [`${dateOfDay(d)} 00:00:00`, `${dateOfDay(d)} 23:59:59`, `${dateOfDay(d)} 12:00:00`]);
    }
    case 'time':
      return typeof value === 'string' && isTime(value) ? [value] : [];
    case 'blob':
      return [];
    case 'text': {
      const text = typeof value === 'string' ? value : String(value);
      if (like || glob) return likeInstances(text, glob);
      const out = [text, text.toUpperCase(), text.toLowerCase(), capitalize(text), `${text} `, `${text}x`, `x${text}`];
      if (text.length > 1) out.push(text.slice(0, -1), text.slice(1));
      if (typeof value !== 'string') {
        const n = numericValue(value);
        if (n !== undefined && Number.isInteger(n)) out.push(String(n - 1), String(n + 1));
      }
      return out;
    }
  }
}

/** Days a date constant points at: the day ±1; for 'YYYY' and 'YYYY-MM' the first and last days around. */
function dateConstants(text: string): number[] {
  if (isDate(text.slice(0, 10))) {
    const d = dayNumber(text);
    return [d - 1, d, d + 1];
  }
  const year = /^(\d{4})$/.exec(text);
  if (year) {
    const y = Number(year[1]);
    const first = dayNumber(`${y}-01-01`);
    const last = dayNumber(`${y + 1}-01-01`) - 1;
    return [first - 1, first, last, last + 1];
  }
  const month = /^(\d{4})-(\d{2})$/.exec(text);
  if (month && isDate(`${text}-01`)) {
    const first = dayNumber(`${text}-01`);
    const next = new Date(Date.UTC(Number(month[1]), Number(month[2]), 1)).toISOString().slice(0, 10);
    const last = dayNumber(next) - 1;
    return [first - 1, first, last, last + 1];
  }
  return [];
}

function formatTimestamp(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** Strings that match a LIKE / GLOB pattern in different ways, plus near misses. */
function likeInstances(pattern: string, glob: boolean): string[] {
  const many = glob ? '*' : '%';
  const one = glob ? '?' : '_';
  const fill = (withMany: string, withOne: string): string => pattern.split(many).join(withMany).split(one).join(withOne);
  const core = fill('', '');
  const out = [fill('', 'a'), fill('ab', 'z'), fill(' ', 'Q'), core, `x${core}`, `${core}x`, core.toUpperCase(), core.toLowerCase()];
  if (core.length > 1) out.push(core.slice(1), core.slice(0, -1));
  return out;
}

function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1).toLowerCase();
}
