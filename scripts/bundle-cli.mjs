/**
 * `npm run build`, after tsc: bundles the command line into dist/cli/ with esbuild.
 *
 * Node 20 pays for every ES module it loads (resolve, read, compile, link), and a Spider run loads
 * about seventy of ours before its first item. The bundle is the same compiled JavaScript as
 * dist/ (tsc's output is its input, so what runs is what the tests check), in fewer files:
 * - `dist/cli/text2sql-ladder.js`, the `bin`: the entry and each subcommand in its own chunk, still
 *   imported only when its name is on the command line (esbuild's code splitting);
 * - `dist/cli/sqlite-child.js`, the engine child, `dist/cli/build-child.js`, a fixture build's
 *   child, and `dist/cli/draw-child.js`, L5's draw child, next to the chunks, where the engine,
 *   the builder and L5's searcher look for them;
 * - packages stay outside (node_modules), source maps point at the TypeScript sources.
 *
 * `--no-source-maps` (the package build, `npm run build:package`): no maps, since the tarball
 * ships no TypeScript sources for them to point at.
 */
import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'cli');
const sourceMaps = !process.argv.includes('--no-source-maps');

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: {
    'text2sql-ladder': 'dist/bin/text2sql-ladder.js',
    'sqlite-child': 'dist/src/engine/sqlite/sqlite-child.js',
    'build-child': 'dist/src/fixtures/build-child.js',
    'draw-child': 'dist/src/semantic/generation/draw-child.js',
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: '[name]-[hash]',
  sourcemap: sourceMaps ? 'linked' : false,
  logLevel: 'warning',
});
chmodSync(path.join(outdir, 'text2sql-ladder.js'), 0o755);
