/**
 * Entry point of one draw child (forked by draw-children.ts with Node's `advanced` IPC
 * serialization, so plans cross with their Maps, bigints and byte arrays intact). Receives a
 * plan's inputs once ({@link DrawChildRequest} `plan`), then draws: each draw is
 * `generateDatabase(plan, createPrng(stream), rows, maxAttempts)` written to the file the parent names, answered
 * with what the generator reported. Jobs run one at a time in the order received. The child ends
 * when its parent goes away (IPC `disconnect`).
 */
import type { DrawChildReply, DrawChildRequest } from './draw-protocol.js';
import { generateDatabase, releaseGeneratorPlan, type GeneratedDatabase } from './generate-database.js';
import { createGeneratorPlan, type GeneratorPlan } from './generator-plan.js';
import { createPrng } from '../model/prng.js';

const send = process.send?.bind(process);
if (!send) {
  console.error('draw-child must be started with child_process.fork (no IPC channel)');
  process.exit(2);
}

/** Plans by the parent's id, or why one could not be made. */
const plans = new Map<number, GeneratorPlan | Error>();

process.on('message', (request: DrawChildRequest) => {
  if (request.type === 'plan') {
    try {
      plans.set(request.plan, createGeneratorPlan(request.input));
    } catch (error) {
      plans.set(request.plan, error instanceof Error ? error : new Error(String(error)));
    }
    return;
  }
  if (request.type === 'forget') {
    const plan = plans.get(request.plan);
    if (plan !== undefined && !(plan instanceof Error)) releaseGeneratorPlan(plan);
    plans.delete(request.plan);
    return;
  }
  let reply: DrawChildReply;
  const plan = plans.get(request.plan);
  try {
    if (plan === undefined) throw new Error(`no plan ${request.plan} in this draw child`);
    if (plan instanceof Error) throw plan;
    const outcome = generateDatabase(plan, {
      rng: createPrng(request.stream),
      file: request.file,
      ...(request.rows === undefined ? {} : { rows: request.rows }),
      ...(request.maxAttempts === undefined ? {} : { maxAttempts: request.maxAttempts }),
      ...(request.checkContract === undefined ? {} : { checkContract: request.checkContract }),
    });
    reply = outcome.ok
      ? { type: 'drawn', id: request.id, ok: true, database: withoutFile(outcome.database), rejected: outcome.rejected }
      : { type: 'drawn', id: request.id, ok: false, reason: outcome.reason, rejected: outcome.rejected };
  } catch (error) {
    reply = { type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) };
  }
  send!(reply);
});

process.on('disconnect', () => process.exit(0));

/** What the parent needs of a drawn database besides the file it named. */
function withoutFile(database: GeneratedDatabase): Omit<GeneratedDatabase, 'file'> {
  const { file: _file, ...rest } = database;
  return rest;
}
