/**
 * Loads a grading provider by promptfoo id (`openai:chat:gpt-4.1`, `anthropic:messages:…`,
 * `ollama:chat:llama3`, `file://judge.mjs`), with an optional `config`, through promptfoo's own
 * `loadApiProvider`. promptfoo is an optional peer: it is imported only here, only when a judge is
 * configured (this module is the promptfoo adapter's; the core never imports promptfoo). Loads are shared per (id, config); a failed load is forgotten so the next call retries.
 */
import { LadderError } from '../errors.js';
import { describeReceived } from '../options.js';
import type { JudgeProvider } from '../judge/faithfulness.js';
import { judgeFromFunction, judgeFromProvider, type EquivalenceJudge, type JudgeFunctionReply } from '../judge/equivalence/ask-judge.js';
import type { JudgeConfig } from '../judge/equivalence/judge-options.js';

const loaded = new Map<string, Promise<JudgeProvider>>();

/** True for an object that already is a provider (`id()` and `callApi()`). */
export function isJudgeProvider(value: unknown): value is JudgeProvider {
  return value !== null && typeof value === 'object' && typeof (value as JudgeProvider).callApi === 'function' && typeof (value as JudgeProvider).id === 'function';
}

/**
 * The provider a spec names: a provider instance as is; an id or `{ id, config }` loaded through promptfoo.
 * @param where - how messages name the option (`config.judge.provider`, `--provider`).
 * @throws LadderError `invalid_option` for a spec of another shape or a provider promptfoo cannot load
 *   (a missing `file://` module, an unknown id); `missing_dependency` when promptfoo
 *   is not installed; promptfoo's own error for an id it does not know.
 */
export async function loadJudgeProvider(spec: unknown, where: string): Promise<JudgeProvider> {
  if (isJudgeProvider(spec)) return spec;
  let id: string;
  let config: unknown;
  if (typeof spec === 'string' && spec.trim() !== '') id = spec;
  else if (spec !== null && typeof spec === 'object' && typeof (spec as { id?: unknown }).id === 'string') {
    id = (spec as { id: string }).id;
    config = (spec as { config?: unknown }).config;
  } else {
    throw new LadderError('invalid_option', `${where} must be a provider id or { id, config }; received ${describeReceived(spec)}`);
  }
  const key = JSON.stringify([id, config ?? null]);
  let pending = loaded.get(key);
  if (pending === undefined) {
    pending = import('promptfoo').then(
      async (promptfoo) => {
        const load = (promptfoo as unknown as { loadApiProvider: (id: string, context?: { options?: { config?: unknown } }) => Promise<JudgeProvider> }).loadApiProvider;
        try {
          return await load(id, config !== undefined ? { options: { config } } : {});
        } catch (error) {
          // A file:// provider that does not exist or throws on import, an unknown provider id:
          // the configuration is wrong (one line naming the provider), not the judge.
          throw new LadderError('invalid_option', `${where}: provider "${id}" could not be loaded: ${oneLineMessage(error)}`, { cause: error });
        }
      },
      (error: unknown) => {
        throw new LadderError('missing_dependency', `${where}: loading provider "${id}" needs promptfoo (npm install promptfoo): ${(error as Error).message}`, { cause: error });
      },
    );
    loaded.set(key, pending);
    pending.catch(() => loaded.delete(key));
  }
  return pending;
}

/**
 * The judge a config names: a function (API / vitest) wrapped as it is, anything else loaded as a
 * promptfoo provider ({@link loadJudgeProvider}); `model` overrides the provider's model name.
 * @throws LadderError as `loadJudgeProvider`.
 */
export async function resolveEquivalenceJudge(config: Pick<JudgeConfig, 'provider' | 'model'>, where = 'config.judge.provider'): Promise<EquivalenceJudge> {
  const given = config.provider;
  if (typeof given === 'function') {
    const fn = given as (prompt: string) => Promise<JudgeFunctionReply>;
    return judgeFromFunction(fn, { id: fn.name !== '' ? `function:${fn.name}` : 'function', ...(config.model !== undefined ? { model: config.model } : {}) });
  }
  const judge = judgeFromProvider(await loadJudgeProvider(given, where));
  return config.model !== undefined ? { ...judge, model: config.model } : judge;
}

/** The first line of an error's message (promptfoo's loader errors carry stack-like detail below). */
function oneLineMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.trim();
}
