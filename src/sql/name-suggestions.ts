/**
 * The did-you-mean for SQL names (tables, columns, qualifiers) in the schema rung's messages.
 * Option names have their own rule (`suggestName` in options.ts): renamed options and cut-off
 * names matter there; a schema name is a plain typo of a catalog name.
 */
import { closest, distance } from 'fastest-levenshtein';

/**
 * The candidate closest to `name` (Levenshtein, case-insensitive), when it is close enough to be a
 * plausible typo: distance ≤ max(2, 40% of the name's length).
 */
export function suggestSchemaName(name: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const lowered = candidates.map((candidate) => candidate.toLowerCase());
  const best = closest(name.toLowerCase(), lowered);
  const limit = Math.max(2, Math.ceil(name.length * 0.4));
  if (distance(name.toLowerCase(), best) > limit) return undefined;
  return candidates[lowered.indexOf(best)];
}
