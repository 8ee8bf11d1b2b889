/**
 * The `text2sql-ladder` command line: one commander program, one module per subcommand.
 * Each subcommand module exports `register…Command(program)` and owns its flags and output; the
 * shared rules (where output goes, exit status, misuse as one line and exit 2) are in cli-io.ts.
 *
 * Start-up is paid on every run (Node 20 has no compile cache), so a run loads only the module of
 * the subcommand it names: {@link SUBCOMMANDS} lists each one with its summary for the top-level
 * help and a loader; the others appear in `--help` from their summaries alone.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, Help } from 'commander';
import { findPackageRoot } from '../fixtures/package-root.js';
import { applyCliConventions, attachCliIo, commandGroup, exitCodeForError, exitCodeOf, processIo } from './cli-io.js';
import type { CliIo } from './cli-io.js';

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
}

const FIXTURES_SUMMARY = 'Commands about fixtures (snapshot databases)';

/** Every subcommand: adding one is one line here plus its module. */
export const SUBCOMMANDS: readonly Subcommand[] = [
  { name: 'spider', term: 'spider [options]', summary: 'Spider-format execution accuracy by hardness, under an explicit comparison policy', load: async () => (await import('./spider.js')).registerSpiderCommand, needs: (args) => ({ engine: true, parser: args.includes('--diagnostics') }) },
  { name: 'check', term: 'check [options]', summary: 'Static L1 syntax, L2 schema and L3 safety checks of SQL (or model output) read from stdin', load: async () => (await import('./check.js')).registerCheckCommand, needs: (args) => ({ engine: optionValue(args, '--dialect', 'sqlite') === 'sqlite', parser: true }) },
  { name: 'compare', term: 'compare [options] <base> <cand>', summary: 'Compare a candidate run with a baseline item by item: rates, regressions, exact McNemar test, paired bootstrap CI, CI gate', load: async () => (await import('./compare.js')).registerCompareCommand },
  { name: 'fixtures', term: 'fixtures', summary: FIXTURES_SUMMARY, load: async () => (await import('./fixtures-strength.js')).registerFixturesCommand },
  { name: 'fixtures', term: 'fixtures', summary: FIXTURES_SUMMARY, load: async () => {
    const { registerFixturesBuildCommand } = await import('./fixtures-build.js');
    return (program) => registerFixturesBuildCommand(commandGroup(program, 'fixtures', FIXTURES_SUMMARY));
  } },
  { name: 'init', term: 'init [options] [dir]', summary: 'Scaffold an app-repo evaluation: promptfoo config, a fixture, a dataset, a recording, package.json scripts', load: async () => (await import('./init.js')).registerInitCommand },
  { name: 'audit', term: 'audit [options] <input>', summary: 'Audit gold SQL: every gold on every snapshot and role; errors, ties at a LIMIT, unordered ties, NULL sort keys, clock reads, disagreeing golds, empty golds without a twin, and more', load: async () => (await import('./audit.js')).registerAuditCommand, needs: () => ({ engine: true, parser: false }) },
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
 * @param argv - as `process.argv`.
 */
export async function startAhead(argv: readonly string[]): Promise<void> {
  const args = argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) return;
  const [name] = subcommandsNeeded(argv);
  const entry = SUBCOMMANDS.find((candidate) => candidate.name === name);
  const needs = entry?.needs?.(args.slice(args.indexOf(entry.name) + 1));
  if (needs?.engine) (await import('../engine/sqlite/sqlite-engine.js')).startSqliteChildAhead();
  if (needs?.parser) (await import('../sql/bounded-parse.js')).warmParserThread();
}

/**
 * Builds the program (exported for tests).
 * @param io - where the commands write (default the process's streams).
 * @param argv - when given, only the subcommand it names is loaded (see {@link subcommandsNeeded});
 *   the rest are listed from their summaries. Default: every subcommand is loaded.
 */
export async function createProgram(io: CliIo = processIo(), argv?: readonly string[]): Promise<Command> {
  const program = new Command('text2sql-ladder')
    .description('Evaluate text-to-SQL output on a ladder of syntax, schema, safety and execution checks.')
    .version(packageVersion(), '-V, --version', 'print the version of text2sql-ladder');
  attachCliIo(program, io);
  applyCliConventions(program);
  // A subcommand that is listed, not loaded, has no options or arguments yet: the top-level help
  // names every subcommand from the table, so it reads the same whichever one was loaded.
  program.configureHelp({
    subcommandTerm(command: Command): string {
      const entry = command.parent === program ? SUBCOMMANDS.find((candidate) => candidate.name === command.name()) : undefined;
      return entry?.term ?? Help.prototype.subcommandTerm.call(this, command);
    },
  });
  const needed = argv === undefined ? undefined : subcommandsNeeded(argv);
  const chosen = SUBCOMMANDS.filter((entry) => needed === undefined || needed.has(entry.name));
  const registers = await Promise.all(chosen.map((entry) => entry.load()));
  // Registered in table order, loaded or listed, so `--help` always reads the same.
  for (const entry of SUBCOMMANDS) {
    const index = chosen.indexOf(entry);
    if (index >= 0) registers[index]!(program);
    else if (!program.commands.some((command) => command.name() === entry.name)) program.command(entry.name).description(entry.summary);
  }
  return program;
}

/**
 * Runs the command line and resolves to its exit status (0 done, 1 a failure the command reports,
 * 2 misuse: one line on stderr, no stack).
 * @param argv - as `process.argv` (node, script, then the arguments).
 * @throws only for a bug (anything that is not misuse), with its stack.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const program = await createProgram(io, argv);
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    return exitCodeForError(error, io);
  }
  // A subcommand that records its status through cli-io (setExitCode), else one that set
  // process.exitCode itself.
  const fallback = typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0);
  return exitCodeOf(program) ?? (Number.isInteger(fallback) ? fallback : 1);
}

/** The `version` of this package's package.json (found from the package root, as fixtures are). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(findPackageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new TypeError('package.json has no string "version"');
  return manifest.version;
}
