import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listSnapshots } from '../../../src/benchmarks/spider/list-snapshots.js';
import { LadderError } from '../../../src/errors.js';
import { tempDir } from '../../compare/helpers.js';

describe('listSnapshots', () => {
  const dir = tempDir('ladder-snapshots-');
  mkdirSync(path.join(dir, 'shop'));
  for (const file of ['a_variant.sqlite', 'shop.sqlite', 'shop.sqlite-journal', 'notes.txt']) writeFileSync(path.join(dir, 'shop', file), 'x');

  it('lists <db_id>.sqlite first, then the other .sqlite files by name', async () => {
    expect(await listSnapshots(dir, 'shop')).toEqual([
      { name: 'shop', path: path.join(dir, 'shop', 'shop.sqlite') },
      { name: 'a_variant', path: path.join(dir, 'shop', 'a_variant.sqlite') },
    ]);
  });

  it('computes sha256 checksums on request', async () => {
    const [first] = await listSnapshots(dir, 'shop', { checksums: true });
    expect(first!.checksum).toBe('2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
  });

  it.each([
    ['unknown db_id', 'nope', 'db_not_found', `unknown db_id "nope": no folder ${path.join(dir, 'nope')}`],
    ['path in db_id', '../shop', 'invalid_option', 'db_id must be a plain folder name; received "../shop"'],
  ])('%s', async (_name, dbId, code, message) => {
    await expect(listSnapshots(dir, dbId)).rejects.toThrow(new LadderError(code as never, message));
  });
});
