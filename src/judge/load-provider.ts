/**
 * Loads a grading provider by promptfoo id (`openai:chat:gpt-4.1`, `anthropic:messages:…`,
 * `ollama:chat:llama3`, `file://judge.mjs`), with an optional `config`, through promptfoo's own
 * `loadApiProvider`. promptfoo is an optional peer: it is imported only here, only when a judge is
 * configured. Loads are shared per (id, config); a failed load is forgotten so the next call retries.
 */
import { LadderError } from '../errors.js';
import type { JudgeProvider } from './faithfulness.js';

const loaded = new Map<string, Promise<JudgeProvider>>();

/** True for an object that already is a provider (`id()` and `callApi()`). */
export function isJudgeProvider(value: unknown): value is JudgeProvider {
  return value !== null && typeof value === 'object' && typeof (value as JudgeProvider).callApi === 'function' && typeof (value as JudgeProvider).id === 'function';
}

/**
 * The provider a spec names: a provider instance as is; an id or `{ id, config }` loaded through promptfoo.
 * @param where - how messages name the option (`config.judge.provider`, `--provider`).
 * @throws LadderError `invalid_option` for a spec of another shape; `missing_dependency` when promptfoo
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
    throw new LadderError('invalid_option', `${where} must be a provider id or { id, config }; received ${JSON.stringify(spec) ?? String(spec)}`);
  }
  const key = JSON.stringify([id, config ?? null]);
  let pending = loaded.get(key);
  if (pending === undefined) {
    pending = import('promptfoo').then(
      async (promptfoo) => {
        const load = (promptfoo as unknown as { loadApiProvider: (id: string, context?: { options?: { config?: unknown } }) => Promise<JudgeProvider> }).loadApiProvider;
        return load(id, config !== undefined ? { options: { config } } : {});
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
