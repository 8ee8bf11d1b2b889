/**
 * The subcommands the program knows before loading any of them: name, summary and loader of each
 * ({@link SUBCOMMANDS}), which one a command line names ({@link subcommandsNeeded}), and what it
 * will need started ({@link startAhead}). Kept apart from program.ts (commander and the I/O
 * rules) so that the bin can start an engine child before the program loads.
 */
import type { Command } from 'commander';

/** Registers one subcommand (with its flags and action) on the program. */
export type RegisterCommand = (program: Command) => void;

/** A subcommand the program knows without loading it. */
export interface Subcommand {
  /** Top-level name as typed (`spider`); several entries may share a group's name (`fixtures`). */
  readonly name: string;
  /** One line for the top-level `--help`; the same text as the loaded command's description. */
  readonly summary: string;
  /** How the top-level `--help` names it (`compare [options] <base> <cand>`); as commander names the loaded command. */
  readonly term: string;
  /** Imports the module and returns its register function. */
  readonly load: () => Promise<RegisterCommand>;
  /**
   * What a run with these arguments (after the subcommand's name) will need: an engine child (it
   * executes SQLite statements with the default engine) and the parser thread (it parses SQL).
   * Those start before the module loads ({@link startAhead}).
   */
  readonly needs?: (args: readonly string[]) => { readonly engine: boolean; readonly parser: boolean };
  /**
   * Whether a run with these arguments (after the subcommand's name) is short: its hot functions
   * run too few times for V8's optimizing compiler to pay for itself, so it runs, and starts its
   * engine children, without it ({@link startAhead}). Absent: not short (V8's defaults).
   */
  readonly short?: (args: readonly string[]) => boolean;
}

const FIXTURES_SUMMARY = 'Commands about fixtures (snapshot databases)';

/** Every subcommand: adding one is one line here plus its module. */
export const SUBCOMMANDS: readonly Subcommand[] = [
  { name: 'spider', term: 'spider [options]', summary: 'Spider-format execution accuracy by hardness, under an explicit comparison policy', load: async () => (await import('./spider.js')).registerSpiderCommand, needs: (args) => ({ engine: true, parser: args.includes('--diagnostics') }), short: (args) => !args.includes('--test-suite') },
  { name: 'check', term: 'check [options]', summary: 'Static L1 syntax, L2 schema and L3 safety checks of SQL (or model output) read from stdin', load: async () => (await import('./check.js')).registerCheckCommand, needs: (args) => ({ engine: optionValue(args, '--dialect', 'sqlite') === 'sqlite', parser: true }), short: () => true },
  { name: 'compare', term: 'compare [options] <base> <cand>', summary: 'Compare a candidate run with a baseline item by item: rates, regressions, exact McNemar test, paired bootstrap CI, CI gate', load: async () => (await import('./compare.js')).registerCompareCommand },
  { name: 'fixtures', term: 'fixtures', summary: FIXTURES_SUMMARY, load: async () => (await import('./fixtures-strength.js')).registerFixturesCommand },
  { name: 'fixtures', term: 'fixtures', summary: FIXTURES_SUMMARY, load: async () => {
    const [{ registerFixturesBuildCommand }, { commandGroup }] = await Promise.all([import('./fixtures-build.js'), import('./cli-io.js')]);
    return (program) => registerFixturesBuildCommand(commandGroup(program, 'fixtures', FIXTURES_SUMMARY));
  } },
  { name: 'init', term: 'init [options] [dir]', summary: 'Scaffold an app-repo evaluation: promptfoo config, a fixture, a dataset, a recording, package.json scripts', load: async () => (await import('./init.js')).registerInitCommand },
  { name: 'audit', term: 'audit [options] <input>', summary: 'Audit gold SQL: every gold on every snapshot and role; errors, ties at a LIMIT, unordered ties, NULL sort keys, clock reads, disagreeing golds, empty golds without a twin, and more', load: async () => (await import('./audit.js')).registerAuditCommand, needs: () => ({ engine: true, parser: false }), short: (args) => !args.includes('--strength') },
  { name: 'judge', term: 'judge', summary: 'Commands about the LLM equivalence judge', load: async () => (await import('./judge.js')).registerJudgeCommand, needs: () => ({ engine: true, parser: false }) },
  { name: 'judge', term: 'judge', summary: 'Commands about the LLM equivalence judge', load: async () => {
    const { registerFaithfulnessCalibrateCommand } = await import('./judge-faithfulness.js');
    return (program) => registerFaithfulnessCalibrateCommand(program, 'Commands about the LLM equivalence judge');
  } },
  { name: 'review', term: 'review [options] [runs...]', summary: 'The review queue: items a calibrated judge calls equivalent where execution failed, or lucky where an empty gold matched; accept one as a new gold or reject it', load: async () => (await import('./review.js')).registerReviewCommand },
];

/**
 * The subcommand names a command line needs loaded: the first argument that is not an option
 * (`help X` needs X), or none (top-level `--help`, `--version`, no arguments, an unknown name).
 * @param argv - as `process.argv` (node, script, then the arguments).
 */
export function subcommandsNeeded(argv: readonly string[]): Set<string> {
  const words = argv.slice(2).filter((arg) => !arg.startsWith('-'));
  const name = words[0] === 'help' ? words[1] : words[0];
  return new Set(name === undefined ? [] : [name]);
}

/** The value a command line gives `--name` (`--name value` or `--name=value`; the last one wins), else `fallback`. */
function optionValue(args: readonly string[], name: string, fallback: string): string {
  let value = fallback;
  args.forEach((arg, index) => {
    if (arg === name) value = args[index + 1] ?? value;
    else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
  });
  return value;
}

/**
 * Starts what a command line will need before the command's modules load, so that their start-up
 * and the loading overlap: the first engine child of a command that runs SQLite statements (its
 * engine adopts the child) and the parser thread of one that parses SQL (`check`, and `spider`
 * with `--diagnostics`: without it the Spider path reads golds from their tokens, and the thread
 * starts on the first gold whose tokens do not decide its ORDER BY). Nothing for other command
 * lines, nor for `--help`.
 *
 * A short run ({@link Subcommand.short}: `spider` without `--test-suite`, `check`, `audit`
 * without `--strength`) first turns off V8's optimizing compiler (TurboFan) in this process and
 * in the engine children it starts. Their hot functions are large async ones: compiling them cost
 * more CPU than the optimized code saved, from 500 to 10 000 Spider items, while an L5 run (test
 * suites, fixture strength) runs its loops long enough to gain from it (docs/performance.md).
 * @param argv - as `process.argv`.
 */
export async function startAhead(argv: readonly string[]): Promise<void> {
  const args = argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) return;
  const [name] = subcommandsNeeded(argv);
  const entry = SUBCOMMANDS.find((candidate) => candidate.name === name && candidate.needs !== undefined);
  if (entry === undefined) return;
  const own = args.slice(args.indexOf(entry.name) + 1);
  const needs = entry.needs!(own);
  const children = needs.engine ? await import('../engine/sqlite/sqlite-children.js') : undefined;
  if (entry.short?.(own) === true) {
    (await import('node:v8')).setFlagsFromString('--no-opt');
    children?.setEngineChildV8Flags(['--no-opt']);
  }
  children?.startSqliteChildAhead();
  if (needs.parser) (await import('../sql/bounded-parse.js')).warmParserThread();
}

