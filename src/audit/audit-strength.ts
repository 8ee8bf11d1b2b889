/**
 * Fixture strength per item (`audit --strength`): the share of each gold's neighbour queries (a
 * dropped predicate, `>` for `>=`, a swapped column, LEFT for INNER JOIN, …; src/semantic/) that
 * the item's snapshots tell apart from the gold. Neighbours no snapshot distinguishes are mistakes
 * the dataset would let through; an item with any is a `weak_fixture` finding listing them.
 *
 * One test suite per database and snapshot set, built with no generated database
 * (`buildTestSuite` with `maxDatabases: 0`, cached like `fixtures strength`), so only the
 * snapshots count. Role items are measured on the full databases (a role copy holds the same
 * rows of the tables the role may read).
 */
import { existsSync } from 'node:fs';
import type { ComparisonPolicy } from '../compare/policy.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import type { Engine } from '../engine/engine.js';
import { fixtureStrength, type GoldStrength } from '../semantic/suite/fixture-strength.js';
import { readFixtureInvariants } from '../semantic/model/invariants.js';
import { buildTestSuite } from '../semantic/suite/test-suite.js';
import { createFinding, type AuditFinding } from './audit-finding.js';
import type { AuditItem, AuditSource } from './audit-source.js';

/** Strength of one item: its golds' neighbours over the snapshots. */
export interface ItemStrength {
  readonly neighbours: number;
  readonly distinguished: number;
  /** distinguished / neighbours; 1 when the golds have no neighbours. */
  readonly strength: number;
  /** Per gold, in the item's order. */
  readonly golds: readonly GoldStrength[];
}

/** Options of {@link measureStrength}. */
export interface StrengthOptions {
  /** Suite cache folder (default as `buildTestSuite`'s). */
  readonly cacheDir?: string;
  /** Seed of the literal perturbations (default `0`). */
  readonly seed?: string;
  /** Deadline per statement, ms. */
  readonly timeoutMs?: number;
  /** Survivors listed per finding (default 5). */
  readonly survivors?: number;
}

/**
 * Measures every item's strength.
 * @param items - the items whose golds ran on at least one snapshot.
 * @returns strength by item id, and one `weak_fixture` finding per item with survivors.
 */
export async function measureStrength(
  source: AuditSource,
  items: readonly AuditItem[],
  engine: Engine,
  policy: ComparisonPolicy,
  options: StrengthOptions = {},
): Promise<{ readonly strength: ReadonlyMap<string, ItemStrength>; readonly findings: readonly AuditFinding[] }> {
  // One group per database and snapshot set.
  const groups = new Map<string, { db: string; names: readonly string[] | undefined; items: AuditItem[] }>();
  for (const item of items) {
    const key = `${item.db}\u0000${item.snapshots?.join('\u0001') ?? ''}`;
    const group = groups.get(key) ?? { db: item.db, names: item.snapshots, items: [] };
    group.items.push(item);
    groups.set(key, group);
  }
  const strength = new Map<string, ItemStrength>();
  const findings: AuditFinding[] = [];
  const shown = options.survivors ?? 5;
  for (const group of groups.values()) {
    const all = await source.allSnapshots(group.db);
    const snapshots: readonly Snapshot[] = group.names === undefined ? all : all.filter((s) => group.names!.includes(s.name));
    if (snapshots.length === 0) continue;
    const manifest = source.manifestOf?.(group.db);
    const golds = [...new Set(group.items.flatMap((item) => item.golds))];
    const suite = await buildTestSuite({
      engine,
      schemaDb: snapshots[0]!.path,
      snapshots,
      golds,
      ...(manifest !== undefined && existsSync(manifest) ? { invariants: readFixtureInvariants(manifest) } : {}),
      seed: options.seed ?? '0',
      policy,
      budget: { maxDatabases: 0 },
      ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    for (const item of group.items) {
      const measured = fixtureStrength(suite, item.golds.map((sql, g) => ({ sql, id: `${item.id}#${g}` })), 'snapshots');
      strength.set(item.id, { neighbours: measured.neighbours, distinguished: measured.distinguished, strength: measured.strength, golds: measured.golds });
      const survivors = measured.golds.flatMap((gold, g) => gold.survivors.map((survivor) => ({ gold: g, ...survivor })));
      if (survivors.length === 0) continue;
      const listed = survivors.slice(0, shown).map((s) => `${s.kind}: ${s.description}`);
      findings.push(
        createFinding({
          kind: 'weak_fixture',
          item: item.id,
          source: item.source,
          snapshot: snapshots.map((s) => s.name).join(', '),
          gold: item.golds.length === 1 ? 0 : null,
          message: `the snapshots tell ${measured.distinguished} of ${measured.neighbours} neighbour queries apart from the gold (${(100 * measured.strength).toFixed(1)}%); not: ${listed.join('; ')}${survivors.length > shown ? `; … ${survivors.length - shown} more` : ''}`,
          details: { neighbours: measured.neighbours, distinguished: measured.distinguished, strength: measured.strength, survivors },
        }),
      );
    }
  }
  return { strength, findings };
}
