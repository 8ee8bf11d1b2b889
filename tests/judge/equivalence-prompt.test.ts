import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EQUIVALENCE_PROMPT_HASH, EQUIVALENCE_PROMPT_TEMPLATE, buildEquivalencePrompt, parseEquivalenceVerdict } from '../../src/judge/equivalence/equivalence-prompt.js';

describe('the equivalence prompt', () => {
  it('is the one docs/judge.md shows, and its hash is the template\'s', () => {
    expect(readFileSync(path.resolve(import.meta.dirname, '../../docs/judge.md'), 'utf8')).toContain(`\`\`\`text\n${EQUIVALENCE_PROMPT_TEMPLATE}\n\`\`\``);
    expect(EQUIVALENCE_PROMPT_HASH).toMatch(/^[0-9a-f]{64}$/);
  });

  it('fills every slot and says what is missing', () => {
    const prompt = buildEquivalencePrompt({ question: ' ', gold: 'SELECT 1', candidate: 'SELECT 2', evidence: [], evidenceNote: 'no database' });
    expect(prompt).not.toMatch(/\{\{\w+\}\}/);
    expect(prompt).toContain('Question: (not given)\n\nSchema:\n(not shared)\n\nREFERENCE:\nSELECT 1\n\nCANDIDATE:\nSELECT 2\n\nEvidence from running both:\n(none: no database)');
  });
});

describe('parseEquivalenceVerdict', () => {
  it.each([
    ['differences first, then the object', 'LEFT JOIN keeps unmatched rows.\n{"differences": ["LEFT vs INNER JOIN"], "equivalent": false}', { ok: true, equivalent: false, differences: ['LEFT vs INNER JOIN'] }],
    ['a fenced object', '```json\n{"differences": [], "equivalent": true}\n```', { ok: true, equivalent: true, differences: [] }],
    ['the last object with "equivalent" wins over quoted ones', 'e.g. {"a": 1} then {"differences": ["x"], "equivalent": "false"}', { ok: true, equivalent: false, differences: ['x'] }],
    ['braces inside strings', '{"differences": ["uses {curly} text"], "equivalent": true}', { ok: true, equivalent: true, differences: ['uses {curly} text'] }],
    ['a single difference as a string', '{"differences": "one", "equivalent": false}', { ok: true, equivalent: false, differences: ['one'] }],
    ['no object', 'They are the same.', { ok: false, error: 'no JSON object in the reply: "They are the same."' }],
    ['no "equivalent"', '{"verdict": "same"}', { ok: false, error: 'no JSON object with an "equivalent" field in the reply' }],
    ['a non-boolean "equivalent"', '{"equivalent": "maybe"}', { ok: false, error: '"equivalent" must be true or false; received "maybe"' }],
    ['differences of another type', '{"differences": [1], "equivalent": true}', { ok: false, error: '"differences" must be a list of strings' }],
  ])('%s', (_case, reply, expected) => {
    expect(parseEquivalenceVerdict(reply)).toEqual(expected);
  });
});
