/**
 * Parsers for command-line flag values, shared by every subcommand: a value commander's parser
 * rejects is usage misuse (one line, exit 2; see cli-io.ts), worded as the library's options are
 * (`expected …`).
 */
import { InvalidArgumentError } from 'commander';

/** An integer ≥ 1 written in decimal digits (`0`, `1e3`, `-1`, `5.5` are rejected). */
export function parsePositiveInteger(value: string): number {
  const parsed = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < 1) throw new InvalidArgumentError('expected an integer >= 1');
  return parsed;
}

/** A parser accepting one of `allowed`. */
export function parseChoice<T extends string>(allowed: readonly T[]): (value: string) => T {
  return (value: string): T => {
    if (!(allowed as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${allowed.join(', ')}`);
    return value as T;
  };
}

/** A comma-separated list of non-empty names. */
export function parseList(value: string): string[] {
  const items = value.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (items.length === 0) throw new InvalidArgumentError('expected a comma-separated list of names');
  return items;
}

/** An integer ≥ 0 written in decimal digits (`0` allowed; `-1`, `1e3`, `5.5` rejected). */
export function parseNonNegativeInteger(value: string): number {
  const parsed = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(parsed)) throw new InvalidArgumentError('expected an integer >= 0');
  return parsed;
}

/** A rate: a decimal number in [0, 1] (`0.9`, `1`). */
export function parseRate(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0 || parsed > 1) throw new InvalidArgumentError('expected a number in [0, 1]');
  return parsed;
}
