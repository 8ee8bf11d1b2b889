/**
 * A scripted equivalence judge for tests: it reads the REFERENCE and CANDIDATE out of the prompt,
 * finds the labelled pair, and answers the label — except on a chosen set of pairs, where it
 * answers the opposite. No network; the error rates are exact by construction.
 */
import type { LabelledPair } from '../../src/dataset/labelled-pairs.js';
import { createSeededRandom } from '../../src/report/seeded-random.js';

/** The REFERENCE and CANDIDATE of an equivalence prompt. */
export function queriesOf(prompt: string): { gold: string; candidate: string } {
  const gold = /\nREFERENCE:\n([\s\S]*?)\n\nCANDIDATE:\n/.exec(prompt)?.[1];
  const candidate = /\nCANDIDATE:\n([\s\S]*?)\n\nEvidence from running both:\n/.exec(prompt)?.[1];
  if (gold === undefined || candidate === undefined) throw new Error(`not an equivalence prompt: ${prompt.slice(0, 200)}`);
  return { gold, candidate };
}

/** The key a pair is found by in a prompt. */
export function pairKey(gold: string, candidate: string): string {
  return `${gold.trim()}\u0000${candidate.trim()}`;
}

/**
 * `count` distinct pairs of `pairs`, chosen by a seeded shuffle (Fisher–Yates with the project's
 * seeded random source).
 */
export function seededChoice(pairs: readonly LabelledPair[], count: number, seed: string): LabelledPair[] {
  const random = createSeededRandom(seed);
  const copy = [...pairs];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random.next() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, count);
}

/** Options of {@link scriptedJudge}. */
export interface ScriptedJudgeOptions {
  /** Pairs the judge answers wrongly. */
  readonly wrongOn?: ReadonlySet<string>;
  /** Pairs (ids) whose reply is malformed on every call, or on the first call only. */
  readonly malformed?: ReadonlyMap<string, 'always' | 'once'>;
  /** Every call, in order (the pair id). */
  readonly calls?: string[];
}

/** The scripted judge as an async function (see the module doc). */
export function scriptedJudge(pairs: readonly LabelledPair[], options: ScriptedJudgeOptions = {}): (prompt: string) => Promise<{ output: string; tokens: number }> {
  const byKey = new Map(pairs.map((pair) => [pairKey(pair.gold, pair.candidate), pair]));
  const seen = new Map<string, number>();
  return async (prompt) => {
    const { gold, candidate } = queriesOf(prompt);
    const pair = byKey.get(pairKey(gold, candidate));
    if (pair === undefined) throw new Error(`the scripted judge has no pair for ${candidate}`);
    options.calls?.push(pair.id);
    const count = (seen.get(pair.id) ?? 0) + 1;
    seen.set(pair.id, count);
    const malformed = options.malformed?.get(pair.id);
    if (malformed === 'always' || (malformed === 'once' && count === 1)) return { output: 'I think they are the same.', tokens: 7 };
    const equivalent = (pair.label === 'equivalent') !== (options.wrongOn?.has(pair.id) ?? false);
    const differences = equivalent ? [] : [`${pair.category}: ${pair.why}`];
    return { output: `Differences:\n${differences.map((d) => `- ${d}`).join('\n') || '- none'}\n${JSON.stringify({ differences, equivalent })}`, tokens: 10 };
  };
}
