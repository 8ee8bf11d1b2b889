/**
 * Exact decimal arithmetic for the comparison of exact numbers (`numeric`, `bigint`, integers):
 * a value is `mantissa × 10^exponent` with a bigint mantissa, so nothing is rounded. Only what
 * cell keys and tolerant equality need: parse, normalize, compare, subtract, multiply.
 */

/** `mantissa × 10^exponent`; normalized values have no trailing zero in the mantissa (0 has exponent 0). */
export interface ExactDecimal {
  readonly mantissa: bigint;
  readonly exponent: number;
}

const DECIMAL_TEXT = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/**
 * Parses decimal text (`-12.50`, `.5`, `1e-6`, `007`) into a normalized {@link ExactDecimal}.
 * @returns `undefined` for anything else (`NaN`, `Infinity`, empty text).
 */
export function parseDecimal(text: string): ExactDecimal | undefined {
  const match = DECIMAL_TEXT.exec(text);
  if (match === null) return undefined;
  const [, sign, whole = '', fraction = '', exponentText] = match;
  if (whole === '' && fraction === '') return undefined;
  const digits = `${whole}${fraction}`;
  const mantissa = BigInt(digits) * (sign === '-' ? -1n : 1n);
  return normalize({ mantissa, exponent: Number(exponentText ?? 0) - fraction.length });
}

/** An exact decimal for an integral number or a bigint; `undefined` for a non-integral number. */
export function decimalOfInteger(value: number | bigint): ExactDecimal | undefined {
  if (typeof value === 'bigint') return normalize({ mantissa: value, exponent: 0 });
  if (!Number.isInteger(value)) return undefined;
  return normalize({ mantissa: BigInt(value), exponent: 0 });
}

/** The same value with the trailing zeros of the mantissa moved into the exponent. */
export function normalize(value: ExactDecimal): ExactDecimal {
  if (value.mantissa === 0n) return { mantissa: 0n, exponent: 0 };
  let { mantissa, exponent } = value;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1;
  }
  return { mantissa, exponent };
}

/** True when the value is a whole number. */
export function isIntegral(value: ExactDecimal): boolean {
  return normalize(value).exponent >= 0;
}

/** The whole number a normalized integral value stands for. */
export function integerOf(value: ExactDecimal): bigint {
  const { mantissa, exponent } = normalize(value);
  return exponent >= 0 ? mantissa * 10n ** BigInt(exponent) : mantissa / 10n ** BigInt(-exponent);
}

/** Canonical text of a normalized value: digits, a point only when fractional (`-0.0125`, `120`). */
export function decimalText(value: ExactDecimal): string {
  const { mantissa, exponent } = normalize(value);
  if (exponent >= 0) return (mantissa * 10n ** BigInt(exponent)).toString();
  const negative = mantissa < 0n;
  const digits = (negative ? -mantissa : mantissa).toString().padStart(-exponent + 1, '0');
  const point = digits.length + exponent;
  return `${negative ? '-' : ''}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * The double equal to the value, when one is exactly equal to it (`0.5`, `2.75`; not `0.1`).
 * Values that would need a subnormal double are treated as having none.
 */
export function exactDouble(value: ExactDecimal): number | undefined {
  const { mantissa, exponent } = normalize(value);
  if (exponent >= 0) {
    const whole = mantissa * 10n ** BigInt(exponent);
    const double = Number(whole);
    return Number.isFinite(double) && BigInt(double) === whole ? double : undefined;
  }
  const places = -exponent;
  if (places > 1022) return undefined;
  const fives = 5n ** BigInt(places);
  if (mantissa % fives !== 0n) return undefined;
  const odd = mantissa / fives; // value = odd / 2^places
  if (odd > 2n ** 53n || odd < -(2n ** 53n)) return undefined;
  return Number(odd) / 2 ** places;
}

/** Both values at the smaller exponent. */
function aligned(a: ExactDecimal, b: ExactDecimal): [bigint, bigint, number] {
  const exponent = Math.min(a.exponent, b.exponent);
  return [a.mantissa * 10n ** BigInt(a.exponent - exponent), b.mantissa * 10n ** BigInt(b.exponent - exponent), exponent];
}

/** `a − b`, exact. */
export function subtract(a: ExactDecimal, b: ExactDecimal): ExactDecimal {
  const [x, y, exponent] = aligned(a, b);
  return { mantissa: x - y, exponent };
}

/** `a × b`, exact. */
export function multiply(a: ExactDecimal, b: ExactDecimal): ExactDecimal {
  return { mantissa: a.mantissa * b.mantissa, exponent: a.exponent + b.exponent };
}

/** |a|. */
export function absolute(a: ExactDecimal): ExactDecimal {
  return a.mantissa < 0n ? { mantissa: -a.mantissa, exponent: a.exponent } : a;
}

/** −1, 0 or 1 as `a` is below, equal to or above `b`. */
export function compareDecimals(a: ExactDecimal, b: ExactDecimal): number {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}
