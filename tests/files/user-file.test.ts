/**
 * The one reader for the user's files: a regular file read up to a limit; a FIFO, a device, a
 * folder or an oversized file is one error naming the path and the cause, never a hang or an abort.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LadderError } from '../../src/errors.js';
import { DEFAULT_MAX_INPUT_BYTES, formatBytes, hashUserFile, maxInputBytes, readUserFile, readUserFileAsync, readUserText } from '../../src/files/user-file.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ladder-user-file-'));
  writeFileSync(path.join(dir, 'ten.txt'), '0123456789');
  spawnSync('mkfifo', [path.join(dir, 'pipe')]);
  mkdirSync(path.join(dir, 'folder'));
  symlinkSync('/dev/zero', path.join(dir, 'zero-link'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LadderError);
    return { code: (error as LadderError).code, message: (error as Error).message };
  }
  throw new Error('did not throw');
}

describe('readUserFile', () => {
  it('reads a regular file whole, up to and including the limit', () => {
    expect(readUserText(path.join(dir, 'ten.txt'), { what: 'run file' })).toBe('0123456789');
    expect(readUserText(path.join(dir, 'ten.txt'), { what: 'run file', maxBytes: 10 })).toBe('0123456789');
  });

  it('refuses a file one byte over the limit, saying the size and the limit', () => {
    expect(errorOf(() => readUserFile(path.join(dir, 'ten.txt'), { what: 'run file', maxBytes: 9 }))).toEqual({
      code: 'input_invalid',
      message: `run file ${path.join(dir, 'ten.txt')} is 10 bytes, over the limit of 9 bytes read from one input file`,
    });
  });

  it.each([
    ['pipe', 'a FIFO (named pipe)'],
    ['zero-link', 'a character device'],
    ['folder', 'a folder'],
  ])('refuses %s at once: it is %s, not a regular file', (name, kind) => {
    const file = path.join(dir, name);
    expect(errorOf(() => readUserFile(file, { what: 'dataset' }))).toEqual({ code: 'input_invalid', message: `cannot read dataset ${file}: it is ${kind}, not a regular file` });
  });

  it('names a missing file and the option prefix and code the caller gives', () => {
    expect(errorOf(() => readUserFile(path.join(dir, 'none'), { what: 'recording', prefix: 'config.predictions: ', code: 'invalid_option' }))).toEqual({
      code: 'invalid_option',
      message: `config.predictions: cannot read recording ${path.join(dir, 'none')}: no such file`,
    });
  });

  it('async: the same rules, a FIFO refused without waiting for a writer', async () => {
    expect((await readUserFileAsync(path.join(dir, 'ten.txt'), { what: 'run file' })).toString()).toBe('0123456789');
    await expect(readUserFileAsync(path.join(dir, 'pipe'), { what: 'run file' })).rejects.toThrow(`cannot read run file ${path.join(dir, 'pipe')}: it is a FIFO (named pipe), not a regular file`);
    await expect(readUserFileAsync(path.join(dir, 'ten.txt'), { what: 'run file', maxBytes: 3 })).rejects.toThrow('is 10 bytes, over the limit of 3 bytes');
  });

  it('hashes a regular file in chunks and refuses a device', () => {
    expect(hashUserFile(path.join(dir, 'ten.txt'), { what: 'database' })).toBe('84d89877f0d4041efb6bf91a16f0248f2fd573e6af05c19f96bedb9f882f7882');
    expect(() => hashUserFile(path.join(dir, 'zero-link'), { what: 'database' })).toThrow('it is a character device, not a regular file');
  });
});

describe('maxInputBytes', () => {
  it('defaults to 256 MiB and reads TEXT2SQL_LADDER_MAX_INPUT_BYTES', () => {
    expect(DEFAULT_MAX_INPUT_BYTES).toBe(268_435_456);
    expect(maxInputBytes({})).toBe(DEFAULT_MAX_INPUT_BYTES);
    expect(maxInputBytes({ TEXT2SQL_LADDER_MAX_INPUT_BYTES: '1024' })).toBe(1024);
  });

  it.each(['0', '-1', '1.5', 'lots', String(2 ** 29)])('refuses %s', (value) => {
    expect(() => maxInputBytes({ TEXT2SQL_LADDER_MAX_INPUT_BYTES: value })).toThrow('TEXT2SQL_LADDER_MAX_INPUT_BYTES');
  });

  it('formats sizes in binary units with the exact count', () => {
    expect(formatBytes(9)).toBe('9 bytes');
    expect(formatBytes(268_435_456)).toBe('256 MiB (268435456 bytes)');
  });
});
