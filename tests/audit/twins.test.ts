import { describe, expect, it } from 'vitest';
import type { AuditItem } from '../../src/audit/audit-source.js';
import { createTwinFinder, goldShape } from '../../src/audit/twins.js';

const item = (id: string, gold: string, extra: Partial<AuditItem> = {}): AuditItem => ({ id, source: `d.yaml:${id}`, db: 'shop', golds: [gold], tags: {}, ...extra });

describe('goldShape', () => {
  it.each([
    ["SELECT id FROM r WHERE reason = 'fraud'", 'select id from r where reason = ?', ["'fraud'"]],
    ['select ID from R where Reason="damaged";', 'select id from r where reason = ?', ['"damaged"']],
    ['SELECT COUNT(*) FROM t WHERE n > 3 -- three', 'select count ( * ) from t where n > ?', ['3']],
  ])('%s', (sql, template, literals) => {
    expect(goldShape(sql)).toEqual({ template, literals });
  });
});

describe('createTwinFinder', () => {
  const fraud = item('fraud', "SELECT id FROM refunds WHERE reason = 'fraud'");
  const damaged = item('damaged', "SELECT id FROM refunds WHERE reason = 'damaged'");
  const paraphrase = item('fraud-again', "SELECT id FROM refunds WHERE reason = 'fraud'");
  const otherDb = item('elsewhere', "SELECT id FROM refunds WHERE reason = 'late'", { db: 'other' });
  const declared = item('oceania', "SELECT name FROM customers WHERE region = 'OCE'", { tags: { pair: 'latam' } });
  const latam = item('latam', 'SELECT c.name FROM customers c JOIN regions r USING (region_id) WHERE r.name = \'LATAM\'');
  const finder = createTwinFinder([fraud, damaged, paraphrase, otherDb, declared, latam]);

  it('the same shape with other literals on the same database is a twin; the same gold (a paraphrase) is not', () => {
    expect(finder.twinsOf(fraud)).toEqual([{ item: damaged, declared: false }]);
    expect(finder.twinsOf(damaged).map((t) => t.item.id)).toEqual(['fraud', 'fraud-again']);
    expect(finder.twinsOf(otherDb)).toEqual([]);
  });

  it('a pair tag names a twin both ways, whatever its shape', () => {
    expect(finder.twinsOf(declared)).toEqual([{ item: latam, declared: true }]);
    expect(finder.twinsOf(latam)).toEqual([{ item: declared, declared: true }]);
  });
});
