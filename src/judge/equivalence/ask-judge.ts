/**
 * Asking the equivalence judge: one interface over a promptfoo provider (`openai:…`,
 * `anthropic:…`, `ollama:…`, a `file://` provider) and any async function, the retry of a
 * malformed reply, and the answer cache.
 *
 * - A reply that cannot be read (no JSON object with `equivalent`, a provider error, a throw) is
 *   asked once more; a second failure is a `judge_error` for that item only.
 * - Readable answers are cached on disk by (provider id, model, prompt hash, the prompt's text —
 *   which holds every input): the same item asked again, in a later run, costs no call. A failure
 *   is never cached. The folder is `<cache folder>/judge` (`TEXT2SQL_LADDER_CACHE_DIR`), or the
 *   one given.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cacheRootDir } from '../../files/scratch.js';
import { errorText } from '../../format.js';
import type { JudgeProvider } from '../faithfulness.js';
import { EQUIVALENCE_PROMPT_HASH, EQUIVALENCE_PROMPT_VERSION, parseEquivalenceVerdict, type EquivalenceVerdict } from './equivalence-prompt.js';

/** A judge as the ladder calls it: who it is, and one call. */
export interface EquivalenceJudge {
  /** Provider id, e.g. `openai:chat:gpt-4.1`, `file://judge.mjs`, or a function judge's own id. */
  readonly id: string;
  /** Model name (part of the calibration identity and the cache key). */
  readonly model: string;
  /**
   * Whether the judge runs on this machine (`ollama:`, `file://`, a function): then schema and
   * rows are shared by default; a hosted provider gets them only when `share` says so.
   */
  readonly local: boolean;
  /** One call: the reply text, or the provider's error; tokens spent when known (else 0). */
  call(prompt: string): Promise<{ readonly output?: string; readonly error?: string; readonly tokens: number }>;
}

/** What an async function judge may return: the reply text, or it with the tokens spent. */
export type JudgeFunctionReply = string | { readonly output: string; readonly tokens?: number };

/**
 * Wraps an async function as a judge (vitest and the API).
 * @param options.id - its id in records and calibrations (default `function`); `model` default the id.
 * @example judgeFromFunction(async (prompt) => myClient.complete(prompt), { id: 'my-judge', model: 'gpt-4.1' })
 */
export function judgeFromFunction(fn: (prompt: string) => Promise<JudgeFunctionReply>, options: { readonly id?: string; readonly model?: string; readonly local?: boolean } = {}): EquivalenceJudge {
  const id = options.id ?? 'function';
  return {
    id,
    model: options.model ?? id,
    local: options.local ?? true,
    async call(prompt) {
      const reply = await fn(prompt);
      if (typeof reply === 'string') return { output: reply, tokens: 0 };
      if (reply !== null && typeof reply === 'object' && typeof reply.output === 'string') return { output: reply.output, tokens: typeof reply.tokens === 'number' ? reply.tokens : 0 };
      return { error: `the judge function returned ${reply === null ? 'null' : typeof reply}, not a string or { output }`, tokens: 0 };
    },
  };
}

/** Provider ids whose model runs on this machine. */
const LOCAL_PROVIDER = /^(ollama:|file:\/\/|echo$|exec:)/;

/**
 * Wraps a promptfoo provider (the slice of ApiProvider the faithfulness judge uses) as a judge.
 * The model is the provider's `modelName` / `config.model` when it has one, else the id's last part
 * (`openai:chat:gpt-4.1` → `gpt-4.1`; a `file://` provider: its id).
 */
export function judgeFromProvider(provider: JudgeProvider & { readonly modelName?: unknown; readonly config?: unknown }): EquivalenceJudge {
  const id = provider.id();
  const configModel = provider.config !== null && typeof provider.config === 'object' ? (provider.config as { model?: unknown }).model : undefined;
  const model = typeof provider.modelName === 'string' ? provider.modelName : typeof configModel === 'string' ? configModel : id.startsWith('file://') ? id : (id.split(':').pop() ?? id);
  return {
    id,
    model,
    local: LOCAL_PROVIDER.test(id),
    async call(prompt) {
      const response = await provider.callApi(prompt);
      const tokens = tokensOf(response.tokenUsage);
      if (response.error) return { error: response.error, tokens };
      return { output: typeof response.output === 'string' ? response.output : JSON.stringify(response.output ?? ''), tokens };
    },
  };
}

function tokensOf(usage: unknown): number {
  if (usage === null || typeof usage !== 'object') return 0;
  const { total, prompt, completion } = usage as { total?: unknown; prompt?: unknown; completion?: unknown };
  if (typeof total === 'number') return total;
  return (typeof prompt === 'number' ? prompt : 0) + (typeof completion === 'number' ? completion : 0);
}

/** The outcome of asking about one item. */
export interface JudgeAnswer {
  readonly verdict: EquivalenceVerdict;
  /** Calls made: 0 (from the cache), 1, or 2 (a retry). */
  readonly calls: number;
  readonly cached: boolean;
  readonly tokens: number;
}

/** Where answers are cached; `false` turns the cache off. */
export type JudgeCacheOption = string | false | undefined;

/** The default answer cache folder: `<cache folder>/judge`. */
export function defaultJudgeCacheDir(): string {
  return path.join(cacheRootDir(), 'judge');
}

/**
 * Asks the judge about one prompt: from the cache when it holds the answer, else a call and, when
 * the reply cannot be read, one more. Never throws for the judge's failures.
 * @param cache - the cache folder (default {@link defaultJudgeCacheDir}), or `false` for none.
 */
export async function askEquivalenceJudge(judge: EquivalenceJudge, prompt: string, cache: JudgeCacheOption = undefined): Promise<JudgeAnswer> {
  const dir = cache === false ? undefined : (cache ?? defaultJudgeCacheDir());
  const key = judgeCacheKey(judge, prompt);
  const stored = dir !== undefined ? readCached(dir, key) : undefined;
  if (stored !== undefined) return { verdict: stored, calls: 0, cached: true, tokens: 0 };
  let calls = 0;
  let tokens = 0;
  let verdict: EquivalenceVerdict = { ok: false, error: 'not asked' };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    calls += 1;
    try {
      const reply = await judge.call(prompt);
      tokens += reply.tokens;
      verdict = reply.error !== undefined ? { ok: false, error: `provider error: ${reply.error}` } : parseEquivalenceVerdict(reply.output ?? '');
    } catch (error) {
      verdict = { ok: false, error: `the judge threw: ${errorText(error)}` };
    }
    if (verdict.ok) break;
  }
  if (verdict.ok && dir !== undefined) writeCached(dir, key, verdict);
  return { verdict, calls, cached: false, tokens };
}

/** sha256 of (provider, model, prompt version and hash, prompt text). */
export function judgeCacheKey(judge: Pick<EquivalenceJudge, 'id' | 'model'>, prompt: string): string {
  return createHash('sha256').update(JSON.stringify([judge.id, judge.model, EQUIVALENCE_PROMPT_VERSION, EQUIVALENCE_PROMPT_HASH, prompt])).digest('hex');
}

function readCached(dir: string, key: string): EquivalenceVerdict | undefined {
  try {
    const value = JSON.parse(readFileSync(path.join(dir, `${key}.json`), 'utf8')) as { equivalent?: unknown; differences?: unknown };
    if (typeof value.equivalent !== 'boolean' || !Array.isArray(value.differences) || !value.differences.every((entry) => typeof entry === 'string')) return undefined;
    return { ok: true, equivalent: value.equivalent, differences: value.differences as string[] };
  } catch {
    return undefined;
  }
}

function writeCached(dir: string, key: string, verdict: Extract<EquivalenceVerdict, { ok: true }>): void {
  try {
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${key}.json`);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ equivalent: verdict.equivalent, differences: verdict.differences }));
    renameSync(temp, file);
  } catch {
    // A cache that cannot be written costs a call next time, nothing else.
  }
}
