/**
 * Perturbed literals of a gold (Zhong, Yu & Klein, "Semantic Evaluation for Text-to-SQL with
 * Distilled Test Suites", EMNLP 2020, §3): integers ±1 and random in ±(|v| + 1), reals ±0.1,
 * strings by substrings, case and `%`.
 */
import type { Prng } from '../model/prng.js';

/** Integers: ±1 and 3 random values in ±(|v| + 1); reals: ±0.1 and 2 random values in ±|v| (paper §3). */
export function numberPerturbations(value: bigint | number, rng: Prng): string[] {
  if (typeof value === 'bigint') {
    const out = [value + 1n, value - 1n];
    const bound = value < 0n ? -value + 1n : value + 1n;
    if (bound <= BigInt(Number.MAX_SAFE_INTEGER)) {
      for (let k = 0; k < 3; k += 1) out.push(BigInt(rng.int(-Number(bound), Number(bound))));
    }
    return [...new Set(out.filter((v) => v !== value).map((v) => v.toString()))];
  }
  const out = [value + 0.1, value - 0.1, (rng.next() * 2 - 1) * Math.abs(value), (rng.next() * 2 - 1) * Math.abs(value)];
  return [...new Set(out.filter((v) => v !== value && Number.isFinite(v)).map((v) => formatReal(v)))];
}

function formatReal(v: number): string {
  const text = String(Math.round(v * 1e6) / 1e6);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/** Substrings, case changes and `%` added or removed (paper §3, plus case). */
export function stringPerturbations(value: string, rng: Prng): string[] {
  const out = new Set<string>();
  const core = value.replaceAll('%', '');
  if (value.length > 1) {
    out.add(value.slice(1));
    out.add(value.slice(0, -1));
    out.add(value.slice(0, Math.ceil(value.length / 2)));
    out.add(value.slice(Math.floor(value.length / 2)));
    for (let k = 0; k < 2; k += 1) {
      const a = rng.int(0, value.length - 1);
      const b = rng.int(a + 1, value.length);
      out.add(value.slice(a, b));
    }
  }
  out.add('');
  out.add(value.toUpperCase());
  out.add(value.toLowerCase());
  out.add(value.length > 0 ? value[0]!.toUpperCase() + value.slice(1).toLowerCase() : value);
  out.add(core);
  out.add(`%${core}`);
  out.add(`${core}%`);
  out.add(`%${core}%`);
  out.delete(value);
  return [...out];
}
