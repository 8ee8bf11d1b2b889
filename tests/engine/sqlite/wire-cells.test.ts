/** Result cells across the engine's JSON channel: tagged where JSON is not exact, restored exactly. */
import { describe, expect, it } from 'vitest';
import type { Cell } from '../../../src/engine/engine.js';
import { tagRows, untagRows, type WireCell } from '../../../src/engine/sqlite/wire-cells.js';

/** Tags, sends through JSON as the channel does, restores. */
function roundTrip(rows: Cell[][]): { tagged: boolean; wire: string; back: Cell[][] } {
  const copy = rows.map((row) => [...row]);
  const tagged = tagRows(copy);
  const wire = JSON.stringify(copy);
  const back = JSON.parse(wire) as WireCell[][];
  if (tagged) untagRows(back);
  return { tagged, wire, back: back as Cell[][] };
}

describe('tagRows / untagRows', () => {
  it('leaves rows JSON carries exactly untouched, and says so', () => {
    const rows: Cell[][] = [[null, 0, 1.5, -2, 9007199254740991, 'a\nb', 'lone \ud800 surrogate', '']];
    const { tagged, wire, back } = roundTrip(rows);
    expect(tagged).toBe(false);
    expect(wire).toBe(JSON.stringify(rows));
    expect(back).toEqual(rows);
  });

  it('restores bigints, blobs, infinities, NaN and -0 exactly', () => {
    const rows: Cell[][] = [
      [9223372036854775807n, -9223372036854775808n, new Uint8Array([0, 255, 16]), new Uint8Array([]), Infinity, -Infinity, NaN, -0, 0],
    ];
    const { tagged, wire, back } = roundTrip(rows);
    expect(tagged).toBe(true);
    expect(wire).toBe(
      '[[{"$bigint":"9223372036854775807"},{"$bigint":"-9223372036854775808"},{"$blob":"AP8Q"},{"$blob":""},{"$real":"Infinity"},{"$real":"-Infinity"},{"$real":"NaN"},{"$real":"-0"},0]]',
    );
    expect(back).toEqual(rows);
    expect(Object.is(back[0]![7], -0)).toBe(true);
    expect(Object.is(back[0]![8], 0)).toBe(true);
  });

  it('gives each blob its own buffer, not a view of a shared pool', () => {
    const { back } = roundTrip([[new Uint8Array([1, 2, 3])]]);
    const blob = back[0]![0] as Uint8Array;
    expect(Buffer.isBuffer(blob)).toBe(false);
    expect(blob.byteOffset).toBe(0);
    expect(blob.buffer.byteLength).toBe(3);
  });

  it('never reads a string cell as a tag', () => {
    const rows: Cell[][] = [['{"$bigint":"1"}', '[object Object]'], [7n]];
    expect(roundTrip(rows).back).toEqual([['{"$bigint":"1"}', '[object Object]'], [7n]]);
  });
});
