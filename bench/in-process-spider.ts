/**
 * The scale bench's single-process control: the Spider evaluation of the command line
 * (`evaluateSpider`, `--preset spider`, the same gold-result cache and comparison) with every
 * statement answered in this process by the engine child's own session code
 * (src/engine/sqlite/sqlite-session.ts) instead of a child process. No IPC, no watchdog, no
 * second process: what is left is the per-item code, run on one thread. The scale bench runs it
 * at 500, 2 500 and 10 000 items beside the command line, so that a marginal cost per item that
 * changes with the run's size can be told apart: from the per-item code (both change) or from the
 * parent / child pipeline (only the command line's does).
 *
 * Not a product path: no deadline or memory cap is enforced here (those live in the child's
 * watchdog thread), so it is for the bench's known statements only.
 *
 *   node dist/bench/in-process-spider.js GOLD_FILE PRED_FILE DB_DIR   → prints {"items","correct"}
 */
import { readPredictions, readSpiderGold } from '../src/benchmarks/spider/read-spider-files.js';
import { resolvePolicy } from '../src/compare/policy.js';
import { evaluateSpider } from '../src/harness/evaluate-spider.js';
import type { Catalog, Engine, ExecutionOutcome, ExplainOutcome } from '../src/engine/engine.js';
import { createSqliteSession } from '../src/engine/sqlite/sqlite-session.js';
import { databasePath, resolveRequest, resolveSqliteEngineOptions } from '../src/engine/sqlite/sqlite-engine-options.js';
import type { ChildOperation, ChildRequest } from '../src/engine/sqlite/sqlite-protocol.js';

/**
 * An {@link Engine} that answers each request with a session in this process, one macrotask
 * later (as a child's answer arrives in a later turn of the event loop, so the evaluator keeps
 * its concurrency). Deadlines and memory caps are not enforced.
 * @returns the engine; `close` closes the session's connections.
 */
function inProcessEngine(): Engine {
  const defaults = resolveSqliteEngineOptions({});
  const session = createSqliteSession({ maxMemoryBytes: defaults.maxMemoryBytes });
  let nextId = 1;
  const answer = (op: ChildOperation, fields: Omit<ChildRequest, 'id' | 'op' | 'maxResultBytes'>): Promise<ReturnType<typeof session.handle>> => {
    const request: ChildRequest = { id: nextId++, op, maxResultBytes: defaults.maxResultBytes, ...fields };
    return new Promise((resolve) => setImmediate(() => resolve(session.handle(request))));
  };
  const run = (op: 'execute' | 'prepare' | 'explain', request: unknown) => answer(op, resolveRequest(request, defaults));
  return {
    dialect: 'sqlite',
    execute: async (request) => (await run('execute', request)) as ExecutionOutcome,
    prepare: async (request) => (await run('prepare', request)) as ExecutionOutcome,
    explain: async (request) => (await run('explain', request)) as ExplainOutcome,
    async catalog(db) {
      const outcome = await answer('catalog', { db: databasePath('db', db), sql: '', timeoutMs: defaults.timeoutMs, maxRows: defaults.maxRows, doubleQuotes: defaults.doubleQuotes });
      if (!outcome.ok) throw new Error(outcome.error.message);
      return (outcome as { catalog: Catalog }).catalog;
    },
    async close() {
      session.close();
    },
  };
}

const [goldFile, predFile, dbDir] = process.argv.slice(2);
if (goldFile === undefined || predFile === undefined || dbDir === undefined) {
  console.error('usage: node dist/bench/in-process-spider.js GOLD_FILE PRED_FILE DB_DIR');
  process.exit(2);
}
// The command line's short-run setting (src/cli/subcommands.ts): V8's optimizing compiler off.
(await import('node:v8')).setFlagsFromString('--no-opt');
const gold = await readSpiderGold(goldFile);
const predictions = await readPredictions(predFile, { knownDbIds: new Set(gold.map((item) => item.dbId)) });
const engine = inProcessEngine();
const output = await evaluateSpider({ gold, predictions, dbDir, engine, policy: resolvePolicy({ preset: 'spider' }) });
await engine.close();
process.stdout.write(`${JSON.stringify({ items: output.items.length, correct: output.items.filter((item) => item.exec === 1).length })}\n`);
