import { describe, expect, it } from 'vitest';
import { targetNote } from '../../bench/targets.js';

describe('targetNote (how the benches print a target and its verdict)', () => {
  it('reads an upper bound, the bound itself included', () => {
    expect(targetNote(1.17, { max: 2 })).toBe('target ≤ 2: met');
    expect(targetNote(1.3, { max: 1.3 })).toBe('target ≤ 1.3: met');
    expect(targetNote(1.38, { max: 1.3 })).toBe('target ≤ 1.3: NOT MET');
  });

  it('reads a range, both ends included', () => {
    expect(targetNote(0.9, { min: 0.9, max: 1.1 })).toBe('target within 0.9–1.1: met');
    expect(targetNote(1.1, { min: 0.9, max: 1.1 })).toBe('target within 0.9–1.1: met');
    expect(targetNote(0.83, { min: 0.9, max: 1.1 })).toBe('target within 0.9–1.1: NOT MET');
    expect(targetNote(1.2, { min: 0.9, max: 1.1 })).toBe('target within 0.9–1.1: NOT MET');
  });

  it('reads an exclusive upper bound, the bound itself excluded', () => {
    expect(targetNote(999, { max: 1000, exclusive: true }, 'ms')).toBe('target < 1000 ms: met');
    expect(targetNote(1000, { max: 1000, exclusive: true }, 'ms')).toBe('target < 1000 ms: NOT MET');
  });

  it('never meets a NaN figure', () => {
    expect(targetNote(Number.NaN, { max: 2 })).toBe('target ≤ 2: NOT MET');
    expect(targetNote(Number.NaN, { min: 0.9, max: 1.1 })).toBe('target within 0.9–1.1: NOT MET');
  });

  it('prints a unit after the bound', () => {
    expect(targetNote(7.18, { max: 250 }, 'ms')).toBe('target ≤ 250 ms: met');
    expect(targetNote(401, { max: 400 }, 'MiB')).toBe('target ≤ 400 MiB: NOT MET');
  });
});
