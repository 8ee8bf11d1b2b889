/**
 * The `text2sql-ladder` command line: one commander program, one module per subcommand.
 * Each subcommand module exports `register…Command(program)` and owns its flags and output.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { findPackageRoot } from '../fixtures/package-root.js';
import { registerSpiderCommand } from './spider.js';
import { registerCheckCommand } from './check.js';
import { registerCompareCommand } from './compare.js';
import { registerFixturesCommand } from './fixtures-strength.js';

/** Builds the program with every subcommand registered (exported for tests). */
export function createProgram(): Command {
  const program = new Command('text2sql-ladder')
    .description('Evaluate text-to-SQL output on a ladder of syntax, schema, safety and execution checks.')
    .version(packageVersion(), '-V, --version', 'print the version of text2sql-ladder')
    .showHelpAfterError();
  registerSpiderCommand(program);
  registerCheckCommand(program);
  registerCompareCommand(program);
  registerFixturesCommand(program);
  return program;
}

/** The `version` of this package's package.json (found from the package root, as fixtures are). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(findPackageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new TypeError('package.json has no string "version"');
  return manifest.version;
}
