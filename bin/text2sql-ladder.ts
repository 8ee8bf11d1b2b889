#!/usr/bin/env node
// `--version` alone is answered before anything else is imported: start-up is paid on every run.
import { readFileSync } from 'node:fs';

/** This package's version when the only argument is `--version` / `-V`, else `undefined`. */
function versionOnly(args: readonly string[]): string | undefined {
  if (args.length !== 1 || (args[0] !== '--version' && args[0] !== '-V')) return undefined;
  // dist/cli/ (the bundle) or dist/bin/ in the package, bin/ in the sources: the first package.json above with our name.
  for (const relative of ['../../package.json', '../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'text2sql-ladder' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // Not there: the next one, then the full program.
    }
  }
  return undefined;
}

const version = versionOnly(process.argv.slice(2));
if (version !== undefined) {
  process.stdout.write(`${version}\n`);
} else {
  // What the command line will need (an engine child, the parser thread) starts before the
  // program and its packages load, so that the child's start-up overlaps theirs; a short run
  // also turns off V8's optimizing compiler for itself and its children (subcommands.ts).
  const { startAhead } = await import('../src/cli/subcommands.js');
  await startAhead(process.argv);
  const { runCli } = await import('../src/cli/program.js');
  process.exitCode = await runCli(process.argv);
}
