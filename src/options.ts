/**
 * The one way the library reads options: a config block, an options object, a dataset field. Every
 * reader checks one value and throws a {@link LadderError} (code `invalid_option` unless the caller
 * names another) whose message has one format:
 *
 * - a wrong value: `<name> must be <expected>; received <value>`
 *   (`config.timeoutMs must be a positive integer (ms); received a string ("5000")`);
 * - an unknown key: `<name> is not an option (did you mean <name>?); known options: a, b, c`
 *   (`config.timeotMs is not an option (did you mean config.timeoutMs?); known options: …`).
 *
 * Did-you-mean is decided one way everywhere ({@link suggestName}): a table of renamed or
 * other libraries' names first, then the same name in another case or separator style
 * (`timeout_ms` → `timeoutMs`), then the closest name by Levenshtein distance when it is close.
 *
 * Received values are described one way ({@link describeReceived}): their kind and value,
 * `a string ("5000")`, `a number (0)`, `an array ([])`, `an object`.
 *
 * Order inside a public function (as better-sqlite3 does): apply defaults, validate arguments,
 * interpret options, validate the interpreted options.
 */
import { distance } from 'fastest-levenshtein';
import { LadderError } from './errors.js';
import type { LadderErrorCode } from './errors.js';

/** A record of options as received (a promptfoo `config` block, an options argument, a JSON object). */
export type OptionRecord = Readonly<Record<string, unknown>>;

/** Longest rendering of a received string or list in a message, in characters (longer ones end in `…`). */
export const MAX_RECEIVED_CHARS = 40;

/**
 * Describes a received value for a message, kind first: `a string ("5000")`, `a number (0)`,
 * `a boolean (true)`, `a bigint (5n)`, `an array (["a","b"])`, `an object`, `a function`,
 * `a Uint8Array`, `null`, `undefined`; strings and lists cut to {@link MAX_RECEIVED_CHARS}.
 * @example describeReceived('5000') // 'a string ("5000")'
 */
export function describeReceived(value: unknown): string {
  const cut = (text: string): string => (text.length > MAX_RECEIVED_CHARS ? `${text.slice(0, MAX_RECEIVED_CHARS)}…` : text);
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let text: string;
    try {
      text = JSON.stringify(value, (_key, entry: unknown) => (typeof entry === 'bigint' ? `${entry}n` : entry)) ?? '';
    } catch {
      text = `length ${value.length}`;
    }
    return `an array (${cut(text)})`;
  }
  switch (typeof value) {
    case 'string':
      return `a string (${JSON.stringify(cut(value))})`;
    case 'number':
    case 'boolean':
      return `a ${typeof value} (${String(value)})`;
    case 'bigint':
      return `a bigint (${value}n)`;
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return value instanceof Uint8Array ? 'a Uint8Array' : 'an object';
  }
}

/**
 * The misuse error for a wrong value: `<name> must be <expected>; received <value>`.
 * @param name - the option as the user wrote it, e.g. `config.timeoutMs`, `--preset`, `policy.maxLimit`.
 * @param expected - what was expected, e.g. `a positive integer (ms)`.
 * @param received - the value received.
 * @param code - default `invalid_option`.
 */
export function invalidValue(name: string, expected: string, received: unknown, code: LadderErrorCode = 'invalid_option'): LadderError {
  return new LadderError(code, `${name} must be ${expected}; received ${describeReceived(received)}`);
}

/** `timeout_ms`, `Timeout-MS` → `timeoutms`: the form two spellings of one name share. */
function looseKey(name: string): string {
  return name.replace(/[-_\s]/g, '').toLowerCase();
}

/**
 * The known name a misspelt one probably meant (the library's one did-you-mean rule): `renamed`
 * first (old names, other libraries' names), then a case / separator variant, then the one known
 * name a cut-off name (4 characters or more) starts, then the closest name by Levenshtein distance
 * when it is within max(2, ⌊length / 3⌋) edits.
 * @returns the suggestion, or `undefined` when nothing is close.
 * @example suggestName('timeout_ms', ['timeoutMs', 'policy']) // 'timeoutMs'
 * @example suggestName('polcy', ['timeoutMs', 'policy'])      // 'policy'
 */
export function suggestName(name: string, known: readonly string[], renamed: Readonly<Record<string, string>> = {}): string | undefined {
  const replacement = Object.hasOwn(renamed, name) ? renamed[name] : undefined;
  if (replacement !== undefined) return replacement;
  const loose = known.find((candidate) => looseKey(candidate) === looseKey(name));
  if (loose !== undefined) return loose;
  // A cut-off name (`budget` for `budgetFactor`): the one known name it starts.
  const starts = looseKey(name).length >= 4 ? known.filter((candidate) => looseKey(candidate).startsWith(looseKey(name))) : [];
  if (starts.length === 1) return starts[0];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** Options of {@link rejectUnknownKeys}. */
export interface UnknownKeyOptions {
  /** Prefix of every name in messages, e.g. `config.` or `policy.` (default none). */
  readonly prefix?: string;
  /** Old or foreign names with the option that replaces each (suggested first). */
  readonly renamed?: Readonly<Record<string, string>>;
  /** Error code (default `invalid_option`). */
  readonly code?: LadderErrorCode;
  /** What the keys are called in the message (default `option`, e.g. `field`). */
  readonly noun?: string;
}

/**
 * The message for an unknown key: `<prefix><key> is not an option (did you mean <prefix><near>?);
 * known options: a, b, c`.
 */
export function unknownKeyMessage(key: string, known: readonly string[], options: UnknownKeyOptions = {}): string {
  const prefix = options.prefix ?? '';
  const noun = options.noun ?? 'option';
  const near = suggestName(key, known, options.renamed);
  const plural = noun.endsWith('s') ? noun : `${noun}s`;
  const article = /^[aeiou]/i.test(noun) ? 'an' : 'a';
  return `${prefix}${key} is not ${article} ${noun}${near !== undefined ? ` (did you mean ${prefix}${near}?)` : ''}; known ${plural}: ${known.join(', ')}`;
}

/**
 * Throws for the first key of `record` that is not in `known`, so that a misspelt option never
 * silently does nothing (STYLE: better-sqlite3).
 * @throws LadderError (`options.code`, default `invalid_option`) with {@link unknownKeyMessage}.
 */
export function rejectUnknownKeys(record: OptionRecord | undefined, known: readonly string[], options: UnknownKeyOptions = {}): void {
  if (record === undefined) return;
  for (const key of Object.keys(record)) {
    if (!known.includes(key)) throw new LadderError(options.code ?? 'invalid_option', unknownKeyMessage(key, known, options));
  }
}

/** True for `{ … }` objects (not arrays, not null, not class instances such as Date or Map). */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Where a reader's options live, for messages and error codes. */
export interface ReaderScope {
  /** Prefix of every name in messages, e.g. `config.` (default none). */
  readonly prefix?: string;
  /** Error code of every problem (default `invalid_option`; dataset fields use `dataset_invalid`). */
  readonly code?: LadderErrorCode;
  /** Text put before every message, e.g. `datasets/warehouse.yaml:12: ` (default none). */
  readonly at?: string;
  /**
   * When true, `null` counts as absent (YAML `key:` with no value). Default true: promptfoo
   * configs and datasets come from YAML. Library options objects set it to false.
   */
  readonly nullIsAbsent?: boolean;
}

/**
 * Typed readers over one options record. Each returns `undefined` when the option is absent and
 * throws the library's one message format when it has the wrong kind or is out of range.
 *
 * @example
 * const read = optionReader(context.config, { prefix: 'config.' });
 * read.unknownKeys(['timeoutMs', 'policy']);
 * const timeoutMs = read.positiveInteger('timeoutMs', 'ms');   // number | undefined
 * const ordered = read.boolean('gold_result_ordered');          // "yes" → LadderError
 */
export interface OptionReader {
  /** The raw value (`undefined` when absent). */
  raw(name: string): unknown;
  /** True when the option is present (not `undefined`, and not `null` unless `nullIsAbsent` is false). */
  has(name: string): boolean;
  /** Throws for keys not in `known` (with a did-you-mean; `renamed` suggested first). */
  unknownKeys(known: readonly string[], renamed?: Readonly<Record<string, string>>): void;
  boolean(name: string): boolean | undefined;
  /** An integer ≥ 1; `unit` is named in the message (e.g. `ms`). */
  positiveInteger(name: string, unit?: string): number | undefined;
  /** A finite number in [min, max] (either bound optional), integer when asked. */
  number(name: string, range?: { readonly min?: number; readonly max?: number; readonly integer?: boolean; readonly expected?: string }): number | undefined;
  /** A non-empty string. */
  string(name: string, expected?: string): string | undefined;
  /** One of `allowed`. */
  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined;
  /**
   * A list of non-empty strings. `single: true` also accepts one string (a list of one);
   * `nonEmpty: true` rejects `[]`; `distinct: true` rejects repeats.
   */
  stringList(name: string, options?: { readonly single?: boolean; readonly nonEmpty?: boolean; readonly distinct?: boolean; readonly expected?: string }): string[] | undefined;
  /** A plain object. */
  record(name: string, expected?: string): Record<string, unknown> | undefined;
  /** The error for a wrong value of `name`, in this reader's scope (for checks the readers do not cover). */
  invalid(name: string, expected: string, received: unknown): LadderError;
}

/**
 * Builds the {@link OptionReader} over `record` (an absent record reads as empty).
 * @throws LadderError when `record` is neither absent nor a plain object.
 */
export function optionReader(record: unknown, scope: ReaderScope = {}): OptionReader {
  const prefix = scope.prefix ?? '';
  const code = scope.code ?? 'invalid_option';
  const at = scope.at ?? '';
  const nullIsAbsent = scope.nullIsAbsent ?? true;
  const fail = (name: string, expected: string, received: unknown): LadderError =>
    new LadderError(code, `${at}${prefix}${name} must be ${expected}; received ${describeReceived(received)}`);
  if (record !== undefined && !(nullIsAbsent && record === null) && !isPlainRecord(record)) {
    const label = prefix.endsWith('.') ? prefix.slice(0, -1) : prefix || 'options';
    throw new LadderError(code, `${at}${label} must be an object; received ${describeReceived(record)}`);
  }
  const values: Readonly<Record<string, unknown>> = isPlainRecord(record) ? record : {};
  const get = (name: string): unknown => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    return nullIsAbsent && value === null ? undefined : value;
  };
  const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
  return {
    raw: get,
    has: (name) => get(name) !== undefined,
    unknownKeys(known, renamed) {
      for (const key of Object.keys(values)) {
        if (!known.includes(key)) throw new LadderError(code, `${at}${unknownKeyMessage(key, known, { prefix, ...(renamed ? { renamed } : {}) })}`);
      }
    },
    boolean(name) {
      const value = get(name);
      if (value === undefined || typeof value === 'boolean') return value;
      throw fail(name, 'true or false', value);
    },
    positiveInteger(name, unit) {
      const value = get(name);
      if (value === undefined) return undefined;
      if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
      throw fail(name, `a positive integer${unit ? ` (${unit})` : ''}`, value);
    },
    number(name, range = {}) {
      const value = get(name);
      if (value === undefined) return undefined;
      const { min, max, integer } = range;
      const ok = typeof value === 'number' && Number.isFinite(value) && (!integer || Number.isInteger(value)) && (min === undefined || value >= min) && (max === undefined || value <= max);
      if (ok) return value;
      const kind = integer ? 'an integer' : 'a number';
      const bounds = min !== undefined && max !== undefined ? ` in [${min}, ${max}]` : min !== undefined ? ` ≥ ${min}` : max !== undefined ? ` ≤ ${max}` : '';
      throw fail(name, range.expected ?? `${kind}${bounds}`, value);
    },
    string(name, expected = 'a non-empty string') {
      const value = get(name);
      if (value === undefined || nonEmptyString(value)) return value;
      throw fail(name, expected, value);
    },
    oneOf(name, allowed) {
      const value = get(name);
      if (value === undefined) return undefined;
      if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as (typeof allowed)[number];
      throw fail(name, `one of ${allowed.map((entry) => JSON.stringify(entry)).join(', ')}`, value);
    },
    stringList(name, options = {}) {
      const value = get(name);
      if (value === undefined) return undefined;
      const expected =
        options.expected ?? `${options.single ? 'a string or ' : ''}a ${options.nonEmpty ? 'non-empty ' : ''}list of non-empty strings`;
      if (options.single && nonEmptyString(value)) return [value];
      if (!Array.isArray(value) || !value.every(nonEmptyString) || (options.nonEmpty && value.length === 0)) throw fail(name, expected, value);
      if (options.distinct) {
        const repeated = value.find((entry, index) => value.indexOf(entry) !== index);
        if (repeated !== undefined) throw fail(name, `${expected} without repeats (${JSON.stringify(repeated)} is listed twice)`, value);
      }
      return [...value];
    },
    record(name, expected = 'an object') {
      const value = get(name);
      if (value === undefined || isPlainRecord(value)) return value;
      throw fail(name, expected, value);
    },
    invalid: fail,
  };
}
