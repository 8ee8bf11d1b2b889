import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { distinctCopy } from '../../bench/speed.bench.js';

describe('distinctCopy (the scale bench\'s repeated slice)', () => {
  it('leaves the first copy as it is and widens the first space of later copies', () => {
    expect(distinctCopy('SELECT count(*) FROM singer', 0)).toBe('SELECT count(*) FROM singer');
    expect(distinctCopy('SELECT count(*) FROM singer', 1)).toBe('SELECT  count(*) FROM singer');
    expect(distinctCopy('SELECT\tname FROM singer', 3)).toBe('SELECT\t   name FROM singer');
    expect(distinctCopy('', 2)).toBe('');
  });

  it('gives texts that differ from each other and that SQLite answers the same way', () => {
    const db = new Database(':memory:');
    db.exec("CREATE TABLE singer (name TEXT, age INTEGER); INSERT INTO singer VALUES ('a', 30), ('b', 40)");
    const copies = [0, 1, 2, 19].map((copy) => distinctCopy("SELECT name FROM singer WHERE age > 35 ORDER BY name", copy));
    expect(new Set(copies).size).toBe(4);
    expect(copies.map((sql) => db.prepare(sql).raw().all())).toEqual([[['b']], [['b']], [['b']], [['b']]]);
    db.close();
  });
});
