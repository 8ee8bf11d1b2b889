/**
 * Twins of an item: the items that tell a right empty answer from a lazy one. A gold that returns
 * no rows is passed by any query that returns nothing, so an empty gold is only evidence next to a
 * twin — the same question about a value that does have rows — which the lazy query fails.
 *
 * An item's twins are
 * - declared: the ids in its `pair` tag, and the items whose `pair` tag names it;
 * - found: items on the same database whose gold has the same shape with other literals (the
 *   SQLite tokens with every string and number replaced by `?`: `reason = 'fraud'` and
 *   `reason = 'damaged'`), e.g. Spider's questions about two different countries.
 */
import { tokenizeSqlite } from '../sql/sqlite-lexer.js';
import type { AuditItem } from './audit-source.js';

/** The shape of a gold and its literals. */
export interface GoldShape {
  /** Tokens with literals as `?`, words lower-cased, one space apart. */
  readonly template: string;
  /** The literals in order, as written. */
  readonly literals: readonly string[];
}

/**
 * The shape of one gold (see the module doc). Double-quoted tokens count as literals: in SQLite's
 * legacy mode `"APG"` is usually a string (Spider writes them so).
 * @example goldShape("SELECT id FROM r WHERE reason = 'fraud'") // { template: "select id from r where reason = ?", literals: ["'fraud'"] }
 */
export function goldShape(sql: string): GoldShape {
  const parts: string[] = [];
  const literals: string[] = [];
  for (const token of tokenizeSqlite(sql)) {
    if (token.kind === 'semicolon') continue;
    if (token.kind === 'string' || token.kind === 'number' || token.kind === 'double_quoted') {
      parts.push('?');
      literals.push(sql.slice(token.start, token.end));
    } else {
      parts.push(token.kind === 'word' ? token.value.toLowerCase() : token.value);
    }
  }
  return { template: parts.join(' '), literals };
}

/** Finds twins among a set of items (built once per audit). */
export interface TwinFinder {
  /** The item's twins, declared first, in dataset order; never the item itself. */
  twinsOf(item: AuditItem): readonly { readonly item: AuditItem; readonly declared: boolean }[];
}

function pairIds(item: AuditItem): string[] {
  const pair = item.tags['pair'];
  if (typeof pair === 'string' || typeof pair === 'number') return [String(pair)];
  return Array.isArray(pair) ? pair.map(String) : [];
}

/** Indexes `items` for {@link TwinFinder.twinsOf}. */
export function createTwinFinder(items: readonly AuditItem[]): TwinFinder {
  const byId = new Map(items.map((item) => [item.id, item]));
  const shapes = new Map(items.map((item) => [item, item.golds.map(goldShape)]));
  const byTemplate = new Map<string, AuditItem[]>();
  for (const item of items) {
    for (const shape of new Set(shapes.get(item)!.map((s) => `${item.db}\u0000${s.template}`))) {
      const list = byTemplate.get(shape) ?? [];
      list.push(item);
      byTemplate.set(shape, list);
    }
  }
  return {
    twinsOf(item) {
      const declared = new Set(pairIds(item));
      for (const other of items) if (pairIds(other).includes(item.id)) declared.add(other.id);
      const out: { item: AuditItem; declared: boolean }[] = [];
      for (const id of declared) {
        const twin = byId.get(id);
        if (twin !== undefined && twin !== item) out.push({ item: twin, declared: true });
      }
      const mine = shapes.get(item)!;
      const seen = new Set(out.map((entry) => entry.item));
      for (const shape of mine) {
        for (const other of byTemplate.get(`${item.db}\u0000${shape.template}`) ?? []) {
          if (other === item || seen.has(other)) continue;
          const otherShapes = shapes.get(other)!.filter((s) => s.template === shape.template);
          if (otherShapes.some((s) => s.literals.join('\u0000') !== shape.literals.join('\u0000'))) {
            out.push({ item: other, declared: false });
            seen.add(other);
          }
        }
      }
      return out;
    },
  };
}
