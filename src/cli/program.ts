/**
 * The `text2sql-ladder` command line: one commander program, one module per subcommand.
 * Each subcommand module exports `register…Command(program)` and owns its flags and output.
 */
import { Command } from 'commander';
import { registerSpiderCommand } from './spider.js';
import { registerCheckCommand } from './check.js';

/** Builds the program with every subcommand registered (exported for tests). */
export function createProgram(): Command {
  const program = new Command('text2sql-ladder')
    .description('Evaluate text-to-SQL output on a ladder of syntax, schema, safety and execution checks.')
    .showHelpAfterError();
  registerSpiderCommand(program);
  registerCheckCommand(program);
  return program;
}
