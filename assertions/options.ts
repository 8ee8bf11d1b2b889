/**
 * Reading an assertion's `config` block: each helper checks one option and throws a
 * LadderError('invalid_option') that names `config.<option>`, what was expected and what was
 * received. Assertion files call these before touching model output (see assertions/adapter.ts).
 */
import { LadderError } from '../src/errors.js';

/** A config block as promptfoo passes it (`context.config`, possibly absent). */
export type ConfigBlock = Readonly<Record<string, unknown>> | undefined;

/** Describes a received value for a message: strings quoted, objects as JSON. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'undefined';
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function invalid(option: string, expected: string, value: unknown): LadderError {
  return new LadderError('invalid_option', `config.${option} must be ${expected}, received ${describeValue(value)}`);
}

/**
 * Throws for keys not in `known`, suggesting the closest known key. Misspelt options must not be
 * silently ignored (STYLE.md, better-sqlite3).
 */
export function rejectUnknownOptions(config: ConfigBlock, known: readonly string[]): void {
  if (config === undefined) return;
  for (const key of Object.keys(config)) {
    if (known.includes(key)) continue;
    const near = known.find((candidate) => candidate.toLowerCase() === key.toLowerCase() || candidate.replace(/_/g, '').toLowerCase() === key.replace(/[_-]/g, '').toLowerCase());
    throw new LadderError(
      'invalid_option',
      `config.${key} is not an option${near ? ` (did you mean config.${near}?)` : ''}; known options: ${known.join(', ')}`,
    );
  }
}

/** A string option from a fixed list, or `undefined` when absent. */
export function readEnum<T extends string>(config: ConfigBlock, option: string, allowed: readonly T[]): T | undefined {
  const value = config?.[option];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalid(option, `one of ${allowed.map((entry) => JSON.stringify(entry)).join(', ')}`, value);
}

/** A positive integer option (e.g. `timeoutMs`), or `undefined` when absent. */
export function readPositiveInteger(config: ConfigBlock, option: string): number | undefined {
  const value = config?.[option];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  throw invalid(option, 'a positive integer', value);
}

/** A boolean option, or `undefined` when absent. */
export function readBoolean(config: ConfigBlock, option: string): boolean | undefined {
  const value = config?.[option];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  throw invalid(option, 'true or false', value);
}

/** A non-empty string option, or `undefined` when absent. */
export function readString(config: ConfigBlock, option: string): string | undefined {
  const value = config?.[option];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && value.trim() !== '') return value;
  throw invalid(option, 'a non-empty string', value);
}

/** A list of strings (a single string counts as a list of one), or `undefined` when absent. */
export function readStringList(config: ConfigBlock, option: string): string[] | undefined {
  const value = config?.[option];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && value.trim() !== '') return [value];
  if (Array.isArray(value) && value.every((entry) => typeof entry === 'string' && entry.trim() !== '')) return [...(value as string[])];
  throw invalid(option, 'a string or a list of non-empty strings', value);
}

/** A plain-object option (e.g. `policy` overrides), or `undefined` when absent. */
export function readObject(config: ConfigBlock, option: string): Record<string, unknown> | undefined {
  const value = config?.[option];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  throw invalid(option, 'an object', value);
}
