import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../src/bounded-map.js';

describe('BoundedMap', () => {
  it('drops the least recently set entry past its limit; a get does not refresh by default', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([...map]).toEqual([['b', 2], ['c', 3]]);
  });

  it('with refreshOnRead, a hit becomes the newest entry, so the least recently used goes', () => {
    const map = new BoundedMap<string, number>(2, { refreshOnRead: true });
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    expect(map.get('missing')).toBeUndefined();
    map.set('c', 3);
    expect([...map]).toEqual([['a', 1], ['c', 3]]);
  });

  it('setting a held key again moves it to the newest place without growing the map', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 10).set('c', 3);
    expect([...map]).toEqual([['a', 10], ['c', 3]]);
  });

  it('calls onEvict with each entry dropped for room, not for delete, clear or a replaced value', () => {
    const evicted: [string, number][] = [];
    const map = new BoundedMap<string, number>(2, { onEvict: (key, value) => evicted.push([key, value]) });
    map.set('a', 1).set('b', 2).set('a', 10).set('c', 3);
    map.delete('a');
    map.set('d', 4).set('e', 5);
    map.clear();
    expect(evicted).toEqual([['b', 2], ['c', 3]]);
  });

  it.each([0, -1, 1.5, Number.NaN])('a limit of %s is refused', (limit) => {
    expect(() => new BoundedMap(limit)).toThrow(new RangeError(`limit must be an integer ≥ 1; received ${String(limit)}`));
  });
});
