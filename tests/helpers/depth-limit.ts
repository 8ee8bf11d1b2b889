/**
 * Pins the depth limit in a test whatever the machine's load. A deep text ends at one of two
 * limits: the parse time budget (2 s by default) or the tree-depth limit, checked once the parse
 * is done. On a loaded machine the parse of a 10 000-term chain can pass 2 s, and the verdict would
 * then name the time instead of the depth. `useGenerousParseBudget()` in a `describe` raises the
 * time budget for its tests, so only the depth limit can end such a parse, and restores it after.
 */
import { afterAll, beforeAll } from 'vitest';
import { setParseTimeBudgetMs } from '../../src/sql/bounded-parse.js';

/** The time budget the tests give a parse: far beyond what any depth-limited text takes under load. */
export const GENEROUS_PARSE_BUDGET_MS = 120_000;

/** Raises the parse time budget for the surrounding `describe` (see the module doc). */
export function useGenerousParseBudget(): void {
  let previous: number | undefined;
  beforeAll(() => {
    previous = setParseTimeBudgetMs(GENEROUS_PARSE_BUDGET_MS);
  });
  afterAll(() => {
    if (previous !== undefined) setParseTimeBudgetMs(previous);
  });
}
