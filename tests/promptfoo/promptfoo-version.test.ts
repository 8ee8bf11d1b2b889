import { describe, expect, it } from 'vitest';
import { promptfooReleaseWarning } from '../../src/promptfoo/promptfoo-version.js';
import { installedToolVerdict } from '../../src/supported-versions.js';

describe('promptfooReleaseWarning (once per promptfoo process)', () => {
  it('is undefined for a tested pair and when promptfoo is not found', () => {
    expect(promptfooReleaseWarning(installedToolVerdict('promptfoo', 'v20.20.2', { version: '0.121.20', node: '^20.20.0 || >=22.22.0' }))).toBeUndefined();
    expect(promptfooReleaseWarning(installedToolVerdict('promptfoo', 'v22.22.0', { version: '0.123.1', node: '>=22.22.0' }))).toBeUndefined();
    expect(promptfooReleaseWarning(undefined)).toBeUndefined();
  });

  it('names the pair, what is tested and the release for this Node', () => {
    expect(promptfooReleaseWarning(installedToolVerdict('promptfoo', 'v22.23.5', { version: '0.124.0', node: '>=22.22.0' }))).toBe(
      'text2sql-ladder: warning: promptfoo 0.124.0 on Node 22.23.5 is not a pair text2sql-ladder is tested with (tested: promptfoo ^0.123.1 on Node ^22.22.0; promptfoo ^0.121.20 on Node ^20.20.0); on this Node: npm install --save-dev promptfoo@0.123.1',
    );
  });
});
