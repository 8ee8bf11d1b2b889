/**
 * Every relative link in the README and docs/ points at a file that exists, and every `#anchor`
 * at a heading of its page; the pages point only inside the repository.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, anchorsOf, brokenLinks, markdownPages } from './markdown.js';

describe('links in the README and docs/', () => {
  it.each(markdownPages())('%s: every relative link resolves', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it.each(markdownPages())('%s: no issue numbers, no paths outside the repository', (page) => {
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    expect(text.match(/\bissues? #?\d+|\.\.\/shared\b/gi) ?? []).toEqual([]);
  });

  it("anchors follow GitHub: backticks and punctuation dropped, lower case, spaces to hyphens", () => {
    expect(anchorsOf('README.md').has('quick-start')).toBe(true);
    expect(anchorsOf('docs/cli.md').has('text2sql-ladder-spider--spider-format-execution-accuracy')).toBe(true);
    expect(anchorsOf('docs/cli.md').has('Quick-start')).toBe(false);
  });

  it('the checker reports a missing file, a missing anchor and a link outside the repository', () => {
    expect(brokenLinks('tests/docs/fixtures/broken-links.md')).toEqual([
      'missing.md: no file tests/docs/fixtures/missing.md',
      '#no-such-heading: no heading with anchor #no-such-heading in tests/docs/fixtures/broken-links.md',
      '../../../README.md#no-such-heading: no heading with anchor #no-such-heading in README.md',
      '../../../../elsewhere.md: outside the repository',
    ]);
  });
});
