/**
 * Finding the numbers a prose answer states (*Text-to-SQL Evals* §9): currency (`$4.12M`), thousands
 * separators (`1,200`, and the non-breaking or thin spaces of `1 200`), decimals, negatives
 * (`-3.5`, `−3.5`), scale suffixes and words (`12k`, `4.12M`, `2bn`, `4.12 million`), percentages
 * (`8%`, `87.3 percent`), per-mille values (`5‰`, `5 per mille`) and multipliers (`3.2x`,
 * `3.2×`, `3.2 times`, `3-fold`).
 *
 * Rules (each one a test in tests/answer/extract-numbers.test.ts):
 * - A number must stand alone: not preceded by a letter, digit, `_` or `.` (so the `3` in `Q3`,
 *   `FY2024` and `v1.2` are not claims; nor is a rank `#1`) and not followed by a letter or digit other than a scale
 *   suffix (`3rd`, `12kg` are not read).
 * - Dates, times, ranges and fractions written with `-`, `/` or `:` between digits
 *   (`2024-09-30`, `10:30`, `1/2`, `10-20`) are not read as numbers.
 * - Numbered-list markers (`1.` or `2)` opening a line) are not read as numbers.
 * - Single-letter suffixes must touch the number (`12k`, `$4.12M`); scale words may follow a space
 *   (`4.12 million`). `m`/`M` is read as million, as in finance prose.
 * - Thousands are grouped by commas or by U+00A0 / U+2009 / U+202F spaces, three digits a group; a
 *   plain space separates two numbers (`in 3 200-page books`).
 * - A multiplier's `x` / `×` must touch the number (`3.2x`); `times` and `fold` follow a space,
 *   `fold` also a hyphen. `0x1F` and `2x4` are not multipliers.
 * - The stated precision is the place value of the last digit written, scale included: `4.12M`
 *   is precise to 10 000, `1,200` to 1, `1.2k` to 100; trailing zeros of an integer count as
 *   written (`1,200` claims 1,200 ± 0.5). The tolerance is half of that unit.
 */

/** One number stated in a text. */
export interface NumberMention {
  /** The text as written, e.g. `$4.12M`, `-8%`, `4.12 million`. */
  readonly text: string;
  /** 0-based UTF-16 offsets `[start, end)` in the text. */
  readonly start: number;
  readonly end: number;
  /**
   * The value as stated, scale applied and sign included: `$4.12M` → 4 120 000; a percentage is in
   * percent units (`87.3%` → 87.3).
   */
  readonly value: number;
  /** True for `%`, `percent`, `pct`. */
  readonly percent: boolean;
  /** True for `‰`, `per mille`, `permille` (the value is in per-mille units: `5‰` → 5). */
  readonly perMille: boolean;
  /** True for a multiplier: `3.2x`, `3.2×`, `3.2 times`, `3-fold` (the value is the factor). */
  readonly multiplier: boolean;
  /** `$`, `€`, `£` or `null`. */
  readonly currency: string | null;
  /** The multiplier from a suffix or word (1 when none). */
  readonly scale: number;
  /** Digits after the decimal point as written. */
  readonly decimals: number;
  /** True when a minus sign is written. */
  readonly negative: boolean;
  /** Half the place value of the last stated digit (same units as `value`): `4.12M` → 5 000. */
  readonly tolerance: number;
  /**
   * A bare four-digit integer from 1900 to 2100 (the range *Text-to-SQL Evals* §9 treats as years): no
   * sign, currency, separator, decimals, scale or percent.
   */
  readonly yearLike: boolean;
}

const SCALES: Readonly<Record<string, number>> = {
  k: 1e3,
  thousand: 1e3,
  m: 1e6,
  mm: 1e6,
  million: 1e6,
  b: 1e9,
  bn: 1e9,
  billion: 1e9,
  t: 1e12,
  trillion: 1e12,
};

const NUMBER = new RegExp(
  [
    '(?<![\\p{L}\\p{N}_.#])(?<!\\d[-/:])', // stands alone; not a rank (#1), not the tail of a date, time or range
    '(?<sign1>[-\u2212])?(?<currency>[$\u20AC\u00A3])?(?<sign2>[-\u2212])?',
    '(?<digits>\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d{1,3}(?:[\u00A0\u2009\u202F]\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?)',
    '(?:(?<suffix>mm|MM|bn|Bn|BN|[kKmMbBtT])(?![\\p{L}\\p{N}_])|\\s?(?<word>thousand|million|billion|trillion)(?![\\p{L}\\p{N}_]))?',
    '(?:(?<percent>\\s?%|\\s(?:percent|per cent|pct)(?![\\p{L}\\p{N}_]))|(?<permille>\\s?\u2030|\\s(?:per mille|per mil|permille)(?![\\p{L}\\p{N}_]))|(?<times>[x\u00D7](?![\\p{L}\\p{N}_])|\\s(?:times|fold)(?![\\p{L}\\p{N}_])|-fold(?![\\p{L}\\p{N}_])))?',
    '(?![\\p{L}\\p{N}_])(?![-/:]\\d)(?!\\.\\d)',
  ].join(''),
  'gu',
);

/**
 * Every number a prose text states, in order of appearance (rules in the module doc).
 *
 * @example
 * extractNumbers('EMEA revenue was $4.12M in Q3, up 8%.').map((m) => [m.text, m.value, m.tolerance])
 * // [['$4.12M', 4120000, 5000], ['8%', 8, 0.5]]
 */
export function extractNumbers(text: string): NumberMention[] {
  const mentions: NumberMention[] = [];
  for (const match of text.matchAll(NUMBER)) {
    if (isListMarker(text, match.index, match[0])) continue;
    const groups = match.groups ?? {};
    const digits = groups['digits']!;
    const [whole, fraction = ''] = digits.replace(/[,\u00A0\u2009\u202F]/g, '').split('.');
    const scaleKey = (groups['suffix'] ?? groups['word'] ?? '').toLowerCase();
    const scale = scaleKey === '' ? 1 : SCALES[scaleKey] ?? 1;
    const negative = groups['sign1'] !== undefined || groups['sign2'] !== undefined;
    const percent = groups['percent'] !== undefined;
    const perMille = groups['permille'] !== undefined;
    const multiplier = groups['times'] !== undefined;
    const currency = groups['currency'] ?? null;
    const decimals = fraction.length;
    // integer digits / 10^decimals × scale keeps 4.12M exactly 4 120 000 (no 4.12 × 1e6 rounding)
    const unit = scale / 10 ** decimals;
    const magnitude = (Number(whole + fraction) * scale) / 10 ** decimals;
    const value = negative ? -magnitude : magnitude;
    const yearLike =
      !negative && currency === null && scale === 1 && !percent && !perMille && !multiplier && decimals === 0 && /^\d{4}$/.test(digits) && magnitude >= 1900 && magnitude <= 2100;
    const start = match.index;
    mentions.push({
      text: match[0],
      start,
      end: start + match[0].length,
      value,
      percent,
      perMille,
      multiplier,
      currency,
      scale,
      decimals,
      negative,
      tolerance: unit / 2,
      yearLike,
    });
  }
  return mentions;
}

/** `1.` / `2)` opening a line (a numbered list), not a claim. */
function isListMarker(text: string, start: number, token: string): boolean {
  if (!/^\d+$/.test(token)) return false;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  return /^[ \t]*$/.test(text.slice(lineStart, start)) && /^[.)][ \t]/.test(text.slice(start + token.length, start + token.length + 2));
}

const LOOSE = /(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?(mm|bn|[kmbt]|thousand|million|billion|trillion)(?![a-z]))?/giu;

/**
 * Every numeric value written anywhere in a text, loosely: digits inside words count too (`Q3` → 3,
 * `FY2024` → 2024, `'2024-07-01'` → 2024, 7, 1). Each maximal run of digits is one value (with its
 * thousands separators and decimals: `1,500` → 1500, never 1 or 500), so `50` is never found in
 * `1500`. A scaled token gives both values (`$4M` → 4 and 4 000 000). Used for the question and the
 * SQL (context, not claims) and for text cells of the result.
 */
export function extractContextNumbers(text: string): number[] {
  const values: number[] = [];
  for (const match of text.matchAll(LOOSE)) {
    const plain = Number(match[1]!.replace(/,/g, ''));
    values.push(plain);
    const scale = match[2] ? SCALES[match[2].toLowerCase()] : undefined;
    if (scale !== undefined) values.push(plain * scale);
  }
  return values;
}
