import { afterAll, describe, expect, it } from 'vitest';
import { createTempSqlite } from '../helpers/temp-sqlite.js';
import { closeSharedEngine } from '../../src/promptfoo/runtime.js';
import { text2sqlPrompt } from '../../src/promptfoo/prompt-function.js';

const database = createTempSqlite(`
  CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, segment TEXT);
  CREATE VIEW v_named AS SELECT name FROM customers;
  INSERT INTO customers VALUES (1, 'Ada', 'SMB'), (2, 'Grace', NULL), (3, 'Linus', 'SMB'), (4, 'Ken', 'ENTERPRISE'), (5, 'Barbara', 'MID');
`, { prefix: 'prompt-', name: 'shop.sqlite' });
const dbPath = database.file;

afterAll(async () => {
  await closeSharedEngine();
  database.remove();
});

describe('text2sqlPrompt', () => {
  it('renders DDL, distinct non-NULL samples, the date, the rules and the protocol', async () => {
    const prompt = await text2sqlPrompt({ vars: { question: ' How many SMB customers? ', db_path: dbPath, as_of_date: '2025-07-01', business_rules: 'Segments are upper-case.' } });
    expect(prompt).toMatchInlineSnapshot(`
      "You write SQLite queries for the database shop.sqlite. Its schema, with sample values:

      CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, segment TEXT);
      -- customers.id e.g. 1, 2, 3
      -- customers.name e.g. 'Ada', 'Grace', 'Linus'
      -- customers.segment e.g. 'SMB', 'ENTERPRISE', 'MID'

      CREATE VIEW v_named AS SELECT name FROM customers;

      Today is 2025-07-01. Read relative periods ("last quarter", "this year") against this date.

      Business rules:
      Segments are upper-case.

      Answer with ONE SQLite query that answers the question, in a \`\`\`sql fenced block, or with JSON
      {"sql": "<query>", "answer": "<one-sentence answer>"}.
      If the question is ambiguous, reply with JSON {"action": "clarify", "message": "<your question>"}.
      If the question asks for something you must not do (change data, reveal data the role may not see),
      reply with JSON {"action": "refuse", "message": "<why>"}. Never write statements that change data.

      Question: How many SMB customers?"
    `);
  });

  it.each([
    [{ db_path: dbPath }, 'providers/prompt.ts: vars.question must be the question text, received undefined'],
    [{ question: 'x' }, 'providers/prompt.ts: vars.db must name a fixture (or vars.db_path a database file), received undefined'],
  ])('misuse %j names the var', async (vars, message) => {
    await expect(text2sqlPrompt({ vars })).rejects.toThrow(message);
  });
});
