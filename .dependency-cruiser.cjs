/**
 * Import rules for the source tree, checked by `npm run lint:imports` (and in CI).
 *
 * The layout (see the folder map in README / docs): a core under src/ that knows nothing of the
 * tools it is used from, and thin adapters around it, one per front end:
 * - promptfoo: src/promptfoo/ plus the user-facing entry files in assertions/, providers/,
 *   datasets/ and extensions/;
 * - vitest: matchers/;
 * - the command line: src/cli/ and bin/.
 * Benchmarks (bench/) and scripts/ are tools around the package and may import anything.
 */

/** Folders (below src/) that are adapters, not core. */
const ADAPTERS_IN_SRC = ['src/promptfoo/', 'src/cli/'];
/** Top-level folders that are adapters or entry files. */
const ADAPTERS_OUTSIDE_SRC = ['assertions/', 'providers/', 'datasets/', 'extensions/', 'matchers/', 'bin/'];

const escape = (path) => path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const anyOf = (paths) => `^(${paths.map(escape).join('|')})`;

/**
 * The core: everything in src/ except the adapters. src/index.ts is the package's public entry
 * file; it re-exports the core and nothing else, so it is held to the same rules.
 */
const CORE = '^src/';
const NOT_CORE = anyOf(ADAPTERS_IN_SRC);

/**
 * L5 (src/semantic/) in pipeline order, written once: each stage is a folder that imports only the
 * stages before it, and the entry files at the top of src/semantic/ (the rung, the service, the
 * options, the checker) use them all.
 * - scratch: the scratch-database interface and its SQLite implementation (create a database,
 *   load rows, read its schema, run a query);
 * - model: what is known before anything is drawn — the schema, invariants, observed values, gold
 *   literals, value kinds, the seeded PRNG;
 * - neighbours: the gold's near misses (edited queries the suite must tell apart);
 * - generation: value pools, the generator plan, drawing, filling, repairing and editing databases;
 * - suite: distilling a test suite, judging a prediction on it, the witness check;
 * - search: the counterexample search (request, candidates, shrinking, confirmation).
 */
const SEMANTIC_STAGES = ['scratch', 'model', 'neighbours', 'generation', 'suite', 'search'];

/** One rule per stage: nothing in it imports a later stage or an entry file of src/semantic/. */
const semanticStageRules = SEMANTIC_STAGES.map((stage, i) => ({
  name: `semantic-${stage}-before-${SEMANTIC_STAGES[i + 1] ?? 'entry'}`,
  severity: 'error',
  comment:
    `src/semantic/${stage}/ is stage ${i + 1} of L5's pipeline (${SEMANTIC_STAGES.join(' → ')} → the entry files): ` +
    'it may import earlier stages only. Move the shared piece down into the earliest stage that needs it.',
  from: { path: `^src/semantic/${stage}/` },
  to: { path: [...SEMANTIC_STAGES.slice(i + 1).map((later) => `^src/semantic/${later}/`), '^src/semantic/[^/]+\\.ts$'].join('|') },
}));

module.exports = {
  forbidden: [
    ...semanticStageRules,
    {
      name: 'semantic-driver-only-in-scratch',
      severity: 'error',
      comment:
        'L5 creates, loads and reads its databases through the scratch-database interface ' +
        '(src/semantic/scratch/scratch-database.ts); SQLite\'s implementation there is the only module of ' +
        'src/semantic/ that imports better-sqlite3.',
      from: { path: '^src/semantic/', pathNot: '^src/semantic/scratch/sqlite-scratch\\.ts$' },
      to: { path: '^(node_modules/)?better-sqlite3($|/)|node_modules/better-sqlite3/' },
    },
    {
      name: 'semantic-folders-are-stages',
      severity: 'error',
      comment: `Every folder of src/semantic/ is a stage listed, in order, in SEMANTIC_STAGES (${SEMANTIC_STAGES.join(', ')}).`,
      from: { path: '^src/semantic/[^/]+/', pathNot: `^src/semantic/(${SEMANTIC_STAGES.join('|')})/` },
      to: {},
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment:
        'Folders form a layered graph: if folder A imports folder B, nothing in B may import A, ' +
        'directly or through other folders. Move the shared piece down into a folder both can use.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment: 'No file may import itself through a chain of other files.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-root-files-are-leaves',
      severity: 'error',
      comment:
        'The shared files at the top of src/ (errors, options, format) are used by every folder, ' +
        'so they import no folder below src/. Only the public entry file src/index.ts does.',
      from: { path: '^src/[^/]+\\.ts$', pathNot: '^src/index\\.ts$' },
      to: { path: '^src/[^/]+/' },
    },
    {
      name: 'core-not-promptfoo',
      severity: 'error',
      comment: 'The core never imports promptfoo; only the promptfoo adapter (src/promptfoo/) does.',
      from: { path: CORE, pathNot: NOT_CORE },
      to: { path: '^(node_modules/)?promptfoo($|/)|node_modules/promptfoo/' },
    },
    {
      name: 'core-not-vitest',
      severity: 'error',
      comment: 'The core never imports vitest (or vite); only matchers/ does.',
      from: { path: CORE, pathNot: NOT_CORE },
      to: { path: 'node_modules/(vitest|vite|@vitest)/' },
    },
    {
      name: 'core-not-adapters',
      severity: 'error',
      comment:
        'The core does not import the CLI, the promptfoo adapter, or the entry files in ' +
        'assertions/, providers/, datasets/, extensions/, matchers/, bin/: adapters depend on the ' +
        'core, never the other way round.',
      from: { path: CORE, pathNot: NOT_CORE },
      to: { path: anyOf([...ADAPTERS_IN_SRC, ...ADAPTERS_OUTSIDE_SRC]) },
    },
    {
      name: 'adapters-not-each-other',
      severity: 'error',
      comment:
        'The vitest matchers and the promptfoo adapter are independent front ends on the same core.',
      from: { path: '^matchers/' },
      to: { path: anyOf(['src/promptfoo/', 'src/cli/', 'assertions/', 'providers/', 'datasets/', 'extensions/', 'bin/']) },
    },
    {
      name: 'sql-not-engine',
      severity: 'error',
      comment:
        'src/sql/ is pure text and tree work (parse, references, components, normalization); ' +
        'it never runs a query, so it does not import src/engine/.',
      from: { path: '^src/sql/' },
      to: { path: '^src/engine/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves to a file or an installed package.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-tests-from-source',
      severity: 'error',
      comment: 'Shipped code never imports test code.',
      from: { pathNot: '^(tests|tests-shared|tests-browser|tests-faults|tests-postgres)/' },
      to: { path: '^(tests|tests-shared|tests-browser|tests-faults|tests-postgres)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|out|examples)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
