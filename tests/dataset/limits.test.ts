/**
 * A dataset's documented limits: a YAML file nested past the reader's stack is one
 * `dataset_invalid` error naming the file and line (0.2.0 printed one "Maximum call stack size
 * exceeded" per level and item), and a question longer than 16 384 characters is an item error.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../src/dataset/load.js';
import { MAX_QUESTION_CHARS } from '../../src/dataset/validate.js';
import { tempDir } from '../compare/helpers.js';

let dir: string;
beforeAll(() => {
  dir = tempDir('ladder-dataset-limits-');
});

describe('dataset limits', () => {
  it('a YAML file nested past the stack: one error naming the file and line', async () => {
    const file = path.join(dir, 'deep.yaml');
    writeFileSync(file, `- id: a\n  question: q\n  gold_sql: SELECT 1\n  db: warehouse\n  tags: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`);
    await expect(loadDataset(file)).rejects.toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+: YAML nested too deeply to read \\(the reader ran out of stack\\); a dataset item is a mapping of fields, each a value or a short list$`));
  });

  it(`a question of ${MAX_QUESTION_CHARS} characters loads; one more is an item error`, async () => {
    expect(MAX_QUESTION_CHARS).toBe(16_384);
    const file = path.join(dir, 'questions.jsonl');
    const item = (id: string, length: number): string => JSON.stringify({ id, question: 'q'.repeat(length), gold_sql: 'SELECT 1', db: 'warehouse' });
    writeFileSync(file, `${item('fits', MAX_QUESTION_CHARS)}\n${item('long', MAX_QUESTION_CHARS + 1)}\n`);
    const loaded = await loadDataset(file);
    expect(loaded.items.map((i) => i.id)).toEqual(['fits']);
    expect(loaded.errors.map((e) => [e.line, e.message])).toEqual([[2, expect.stringContaining(`question is 16385 characters, over the limit of 16384 (a question is a prompt's text, not a document)`)]]);
  });
});
