/**
 * A SQLite parse memo that records, in `events`, when a text's parse is started ahead
 * (`ahead: <sql>`), when it is awaited (`wait: <sql>`) and when it is read (`parse: <sql>`), so that a test can put them in order with
 * the engine's requests and answers it records in the same list.
 */
import { createParseMemo, type ParseMemo } from '../../src/rungs/parse-memo.js';

export function recordingMemo(events: string[]): ParseMemo {
  const memo = createParseMemo('sqlite');
  return {
    dialect: memo.dialect,
    parse: (sql) => (events.push(`parse: ${sql}`), memo.parse(sql)),
    parseAhead: (sql) => (events.push(`ahead: ${sql}`), memo.parseAhead(sql)),
    whenParsed: (sql) => (events.push(`wait: ${sql}`), memo.whenParsed(sql)),
    references: (sql, options) => memo.references(sql, options),
    get parses() {
      return memo.parses;
    },
  };
}
