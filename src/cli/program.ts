/**
 * The `text2sql-ladder` command line: one commander program, one module per subcommand.
 * Each subcommand module exports `register…Command(program)` and owns its flags and output; the
 * shared rules (where output goes, exit status, misuse as one line and exit 2) are in cli-io.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { findPackageRoot } from '../fixtures/package-root.js';
import { applyCliConventions, attachCliIo, exitCodeForError, exitCodeOf, processIo } from './cli-io.js';
import type { CliIo } from './cli-io.js';
import { registerSpiderCommand } from './spider.js';
import { registerCheckCommand } from './check.js';
import { registerCompareCommand } from './compare.js';
import { registerFixturesCommand } from './fixtures-strength.js';
import { registerAuditCommand } from './audit.js';
import { registerFixturesBuildCommand } from './fixtures-build.js';
import { registerInitCommand } from './init.js';

/**
 * Builds the program with every subcommand registered (exported for tests).
 * @param io - where the commands write (default the process's streams).
 */
export function createProgram(io: CliIo = processIo()): Command {
  const program = new Command('text2sql-ladder')
    .description('Evaluate text-to-SQL output on a ladder of syntax, schema, safety and execution checks.')
    .version(packageVersion(), '-V, --version', 'print the version of text2sql-ladder');
  attachCliIo(program, io);
  applyCliConventions(program);
  registerSpiderCommand(program);
  registerCheckCommand(program);
  registerCompareCommand(program);
  registerFixturesCommand(program);
  registerFixturesBuildCommand(program.commands.find((command) => command.name() === 'fixtures')!);
  registerInitCommand(program);
  registerAuditCommand(program);
  return program;
}

/**
 * Runs the command line and resolves to its exit status (0 done, 1 a failure the command reports,
 * 2 misuse: one line on stderr, no stack).
 * @param argv - as `process.argv` (node, script, then the arguments).
 * @throws only for a bug (anything that is not misuse), with its stack.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const program = createProgram(io);
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
