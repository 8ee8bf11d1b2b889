import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkVitestRelease } from '../../matchers/vitest-version.js';
import { installedToolVerdict } from '../../src/supported-versions.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('checkVitestRelease (run when text2sql-ladder/vitest is imported)', () => {
  it('is silent for the vitest running these tests (4.1.12 on Node 20 or 22)', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(installedToolVerdict('vitest')).toEqual({ kind: 'tested' });
    checkVitestRelease();
    expect(warn).not.toHaveBeenCalled();
  });

  it('stops vitest 5 on Node 20 with the Node it needs and the release for this Node, printed too', () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    const message = 'text2sql-ladder/vitest: vitest 5.1.2 does not run on Node 20.20.2 (its engines field says ^22.12.0 || ^24.0.0 || >=26.0.0); use Node ^22.22.0, or on this Node: npm install --save-dev vitest@4.1.12';
    expect(() => checkVitestRelease(installedToolVerdict('vitest', 'v20.20.2', { version: '5.1.2', node: '^22.12.0 || ^24.0.0 || >=26.0.0' }))).toThrow(new Error(message));
    expect(printed.mock.calls).toEqual([[message]]);
  });

  it('warns once for an untested pair and goes on', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    checkVitestRelease(installedToolVerdict('vitest', 'v22.22.0', { version: '4.0.18' }));
    expect(warn.mock.calls).toEqual([
      ['text2sql-ladder/vitest: warning: vitest 4.0.18 on Node 22.22.0 is not a pair text2sql-ladder is tested with (tested: vitest ^5.1.0 on Node ^22.22.0; vitest ^4.1.0 on Node ^20.20.0 || ^22.22.0; vitest ^3.2.0 on Node ^20.20.0 || ^22.22.0); on this Node: npm install --save-dev vitest@5.1.2'],
    ]);
  });

  it('does nothing when vitest cannot be found', () => {
    expect(() => checkVitestRelease(undefined)).not.toThrow();
  });
});
