/**
 * docs/api.md documents exactly what the package entry exports: one table row per name of
 * src/index.ts, and no row for a name it does not export.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './markdown.js';

/** The names src/index.ts exports (values and types), from its `export { … } from` lists. */
function exportedNames(): string[] {
  const source = readFileSync(path.join(ROOT, 'src', 'index.ts'), 'utf8');
  const names: string[] = [];
  for (const match of source.matchAll(/^export (?:type )?\{([^}]*)\} from '[^']+';$/gm)) {
    for (const entry of match[1]!.split(',')) {
      const name = entry.trim().split(/\s+as\s+/).at(-1)!;
      if (name !== '') names.push(name);
    }
  }
  expect(source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').match(/^export (?!(?:type )?\{[^}]*\} from)/gm) ?? [], 'only `export { … } from` lists').toEqual([]);
  return names.sort();
}

/** The names docs/api.md gives a row: the leading identifier of each table row's first cell. */
function documentedNames(): string[] {
  const page = readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');
  return [...page.matchAll(/^\| `([A-Za-z_][A-Za-z0-9_]*)[`(<]/gm)].map((match) => match[1]!).sort();
}

describe('docs/api.md', () => {
  it('has one row per export of src/index.ts and none for anything else', () => {
    expect(documentedNames()).toEqual(exportedNames());
  });

  it('the entry is a deliberate list: 98 names (a change is a CHANGELOG line and a row here)', () => {
    expect(exportedNames().length).toBe(98);
  });
});
