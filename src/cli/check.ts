import type { Command } from 'commander';

/** Registers `text2sql-ladder check` (issue 5). Placeholder until the static rungs land. */
export function registerCheckCommand(program: Command): void {
  program.command('check').description('Static L1-L3 checks of SQL read from stdin (not built yet)');
}
