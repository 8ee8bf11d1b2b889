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
import { applyCliConventions, attachCliIo, exitCodeForError, exitCodeOf, processIo } from './cli-io.js';
import type { CliIo } from './cli-io.js';
import { SUBCOMMANDS, subcommandsNeeded } from './subcommands.js';

export { SUBCOMMANDS, startAhead, subcommandsNeeded, type RegisterCommand, type Subcommand } from './subcommands.js';

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
