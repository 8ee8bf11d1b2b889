/**
 * `npm run bench`: runs every `bench/*.bench.ts` module (compiled to dist/bench) in one process,
 * one after another, and prints each module's figures. A bench module exports
 * `run(): Promise<BenchReport>`; ratios are measured within the same run so that they do not
 * depend on the machine.
 */
import { readdir, mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import type { BenchReport } from './report.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = (await readdir(here)).filter((name) => name.endsWith('.bench.js')).sort();
const reports: BenchReport[] = [];
for (const file of files) {
  const name = file.replace(/\.bench\.js$/, '');
  if (only.length > 0 && !only.includes(name)) continue;
  const module = (await import(pathToFileURL(path.join(here, file)).href)) as { run: () => Promise<BenchReport> };
  console.log(`\n## ${name}`);
  const report = await module.run();
  for (const line of report.lines) console.log(line);
  reports.push(report);
}
const outDir = path.resolve(here, '../../bench/results');
await mkdir(outDir, { recursive: true });
await writeFile(path.join(outDir, 'latest.json'), JSON.stringify(reports, null, 2));
console.log(`\nwrote ${path.relative(process.cwd(), path.join(outDir, 'latest.json'))}`);
