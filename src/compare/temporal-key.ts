/**
 * Equality keys of dates and times, as PostgreSQL compares them under the session settings the
 * engine pins (ISO `DateStyle`, `TimeZone` UTC, `IntervalStyle` postgres):
 * - `date`, `timestamp` and `timestamptz` are points on one time line: a date is the timestamp at
 *   its midnight, a `timestamptz` is its instant (its printed offset applied), a `timestamp` is read
 *   in UTC. So `DATE '2024-03-01'` = `TIMESTAMP '2024-03-01 00:00'` = `'2024-03-01 01:00+01'`,
 *   as `=` says in PostgreSQL; `infinity` / `-infinity` are the two ends.
 * - `time` by its value; `timetz` by its instant and its offset (PostgreSQL's `timetz_eq`).
 * - `interval` by its fields (months, days, time), as printed: stricter than PostgreSQL's `=`, which
 *   counts a month as 30 days and a day as 24 hours (`'1 mon' = '30 days'` is true there).
 * A text that does not read as the pinned format (a statement that changed `DateStyle` for its own
 * output) keeps a key of its own text, so it equals only the same text.
 */
import type { TemporalCell } from '../engine/cells.js';

const MICROS_PER_DAY = 86_400_000_000;
const DATE = /^(\d{4,})-(\d{2})-(\d{2})/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?/;
const OFFSET = /^([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?/;

/**
 * Days from 1970-01-01 to a proleptic Gregorian date (astronomical years: 1 BC is year 0).
 * Source: H. Hinnant, "chrono-Compatible Low-Level Date Algorithms", `days_from_civil`.
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

interface Reader {
  text: string;
  at: number;
}

function readDate(reader: Reader): number | undefined {
  const match = DATE.exec(reader.text.slice(reader.at));
  if (match === null) return undefined;
  reader.at += match[0].length;
  return daysFromCivil(Number(match[1]), Number(match[2]), Number(match[3]));
}

function readTime(reader: Reader): number | undefined {
  const match = TIME.exec(reader.text.slice(reader.at));
  if (match === null) return undefined;
  reader.at += match[0].length;
  const micros = Number((match[4] ?? '').padEnd(6, '0'));
  return ((Number(match[1]) * 60 + Number(match[2])) * 60 + Number(match[3])) * 1_000_000 + micros;
}

function readOffsetSeconds(reader: Reader): number | undefined {
  const match = OFFSET.exec(reader.text.slice(reader.at));
  if (match === null) return undefined;
  reader.at += match[0].length;
  const seconds = Number(match[2]) * 3600 + Number(match[3] ?? 0) * 60 + Number(match[4] ?? 0);
  return match[1] === '-' ? -seconds : seconds;
}

/** `BC` after a date moves year Y to astronomical year 1 − Y. */
function bcShift(reader: Reader, days: number, text: string): number | undefined {
  if (reader.text.slice(reader.at) === ' BC') {
    reader.at += 3;
    const year = Number(DATE.exec(text)?.[1]);
    const month = Number(DATE.exec(text)?.[2]);
    const day = Number(DATE.exec(text)?.[3]);
    return daysFromCivil(1 - year, month, day);
  }
  return days;
}

/** A point on the time line as `T<days>:<micros of day>`, or `undefined` when the text does not read. */
function timelineKey(cell: TemporalCell): string | undefined {
  const text = cell.text;
  if (text === 'infinity') return 'T+inf';
  if (text === '-infinity') return 'T-inf';
  const reader: Reader = { text, at: 0 };
  let days = readDate(reader);
  if (days === undefined) return undefined;
  let micros = 0;
  if (cell.type !== 'date') {
    if (text[reader.at] !== ' ') return undefined;
    reader.at += 1;
    const time = readTime(reader);
    if (time === undefined) return undefined;
    micros = time;
    if (cell.type === 'timestamptz') {
      const offset = readOffsetSeconds(reader);
      if (offset === undefined) return undefined;
      micros -= offset * 1_000_000;
    }
  }
  const shifted = bcShift(reader, days, text);
  if (shifted === undefined || reader.at !== text.length) return undefined;
  days = shifted + Math.floor(micros / MICROS_PER_DAY);
  micros -= Math.floor(micros / MICROS_PER_DAY) * MICROS_PER_DAY;
  return `T${days}:${micros}`;
}

/**
 * The equality key of a date or time cell (see the module doc).
 * @example temporalKey(new TemporalCell('date', '2024-03-01')) === temporalKey(new TemporalCell('timestamptz', '2024-03-01 01:00:00+01')) // true
 */
export function temporalKey(cell: TemporalCell): string {
  switch (cell.type) {
    case 'date':
    case 'timestamp':
    case 'timestamptz':
      return timelineKey(cell) ?? `X${cell.type}:${cell.text}`;
    case 'time': {
      const reader: Reader = { text: cell.text, at: 0 };
      const time = readTime(reader);
      return time !== undefined && reader.at === cell.text.length ? `t${time}` : `Xtime:${cell.text}`;
    }
    case 'timetz': {
      const reader: Reader = { text: cell.text, at: 0 };
      const time = readTime(reader);
      const offset = time === undefined ? undefined : readOffsetSeconds(reader);
      if (time === undefined || offset === undefined || reader.at !== cell.text.length) return `Xtimetz:${cell.text}`;
      return `z${time - offset * 1_000_000}:${offset}`;
    }
    case 'interval':
      return `i${cell.text}`;
  }
}
