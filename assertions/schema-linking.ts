/**
 * `schemaLinking` assertion (diagnostic, never gates): table / column recall@k, all_tables_hit,
 * precision@k and F1 of the schema elements the provider retrieved (`tables` in its JSON output)
 * and of the tables the predicted SQL uses, against every gold (src/rungs/schema-linking.ts).
 * With a database (`db` / `db_path`), columns resolve through its catalog and, on SQLite, the
 * tables the engine reads (through views) count as a valid gold table set.
 *
 * Options: `k` (positive integer; default: the whole retrieved list), `threshold`, `dialect`,
 * item fields.
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/schema-linking.ts:schemaLinking
 *     config: { k: 5 }
 * ```
 */
import { scoreSchemaLinking } from '../src/rungs/schema-linking.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { runDiagnosticAssertion } from '../src/promptfoo/diagnostic-assertion.js';
import type { DiagnosticAssertionSpec } from '../src/promptfoo/diagnostic-assertion.js';
import { configReader } from '../src/promptfoo/config.js';

/** The spec (exported for tests). */
export const SCHEMA_LINKING_ASSERTION: DiagnosticAssertionSpec = {
  file: 'assertions/schema-linking.ts:schemaLinking',
  rung: 'schemaLinking',
  options: ['k'],
  needsDatabase: false,
  validate: (config) => void configReader(config).positiveInteger('k'),
  run: async ({ sql, answer, golds, options, config, database }) => {
    const k = configReader(config).positiveInteger('k');
    let extra = {};
    if (database) {
      const catalog = await database.engine.catalog(database.db);
      extra = { catalog };
      if (options.dialect === 'sqlite') {
        const goldTablesRead = [];
        for (const gold of golds) {
          const explained = await database.engine.explain({ db: database.db, sql: gold });
          goldTablesRead.push(explained.ok ? explained.result.tablesRead : null);
        }
        const predicted = await database.engine.explain({ db: database.db, sql });
        extra = { catalog, goldTablesRead, predictedTablesRead: predicted.ok ? predicted.result.tablesRead : null };
      }
    }
    return scoreSchemaLinking({
      goldSqls: golds,
      dialect: options.dialect,
      predictedSql: sql,
      ...(answer.tables ? { retrieved: answer.tables } : {}),
      ...(k !== undefined ? { k } : {}),
      ...extra,
    });
  },
};

/** promptfoo assertion: schema linking (diagnostic). */
export function schemaLinking(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runDiagnosticAssertion(SCHEMA_LINKING_ASSERTION, output, context);
}
