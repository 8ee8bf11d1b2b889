import type { Command } from 'commander';

/** Registers `text2sql-ladder spider` (issue 3). Placeholder until the comparison layer lands. */
export function registerSpiderCommand(program: Command): void {
  program.command('spider').description('Spider-format execution accuracy (not built yet)');
}
