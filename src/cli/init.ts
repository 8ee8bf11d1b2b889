/**
 * `text2sql-ladder init [DIR]`: scaffolds an app-repo evaluation that runs first time:
 * `promptfooconfig.yaml` (the package referenced through `file://node_modules/text2sql-ladder/…`,
 * as promptfoo loads test generators, prompts, providers and extensions), a fixture folder
 * (`fixtures/shop`: schema, data scripts for two snapshots, one role), a dataset with answer,
 * clarify and refuse items, a replay recording, the environment file that keeps promptfoo offline
 * and quiet (`.env.ladder`, passed with `--env-file`), `.gitignore` lines and `package.json`
 * scripts (`eval`, `eval:online`, `view`, `audit`, `fixtures:build`).
 *
 *   text2sql-ladder init [DIR] [--force]
 *
 * Nothing is overwritten without `--force`: existing files are listed and the command exits 2.
 * An existing `package.json` keeps its fields; missing scripts and dev dependencies are added.
 * An existing `.gitignore` gets the missing lines appended.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { LadderError } from '../errors.js';
import { findPackageRoot } from '../fixtures/package-root.js';
import { applyCliConventions, cliIoOf, setExitCode } from './cli-io.js';
import type { CliIo } from './cli-io.js';

/** Template file (under `templates/app`) → path in the scaffold. Files not listed keep their path. */
const RENAMED: Readonly<Record<string, string>> = { 'env.ladder': '.env.ladder', 'env.online': '.env.online' };

/** promptfoo version the scaffold pins (the one this package is tested with). */
export const PROMPTFOO_VERSION = '0.121.20';

const PROMPTFOO_FLAGS = '-c promptfooconfig.yaml --no-cache --no-progress-bar --no-table -o out/eval.json';

/** The scripts `init` adds to package.json. */
export const SCAFFOLD_SCRIPTS: Readonly<Record<string, string>> = {
  eval: `promptfoo eval --env-file .env.ladder ${PROMPTFOO_FLAGS}`,
  'eval:online': `promptfoo eval --env-file .env.ladder,.env.online ${PROMPTFOO_FLAGS}`,
  view: 'promptfoo view --env-file .env.ladder -n',
  audit: 'text2sql-ladder audit datasets/questions.yaml --fixtures fixtures',
  'fixtures:build': 'text2sql-ladder fixtures build fixtures',
};

/** Parsed flags of `init`. */
export interface InitOptions {
  readonly force?: boolean;
}

/** What `init` wrote. */
export interface InitReport {
  readonly dir: string;
  /** Files written, relative to `dir`, sorted. */
  readonly written: readonly string[];
  /** Scripts added to package.json; `kept` lists names that existed already. */
  readonly scripts: { readonly added: readonly string[]; readonly kept: readonly string[] };
}

/** Registers `text2sql-ladder init` on the program. */
export function registerInitCommand(program: Command): void {
  const command = program.command('init');
  applyCliConventions(command)
    .description('Scaffold an app-repo evaluation: promptfoo config, a fixture, a dataset, a recording, package.json scripts')
    .argument('[dir]', 'the app folder (default: the working directory)', '.')
    .option('--force', 'overwrite files that exist', false)
    .action((dir: string, options: InitOptions) => {
      const io = cliIoOf(command);
      const report = initApp(dir, options);
      io.stdout.write(renderInitReport(report, dir));
      setExitCode(command, 0);
    });
}

/** The template folder shipped with the package. */
export function templateDir(): string {
  return path.join(findPackageRoot(), 'templates', 'app');
}

function listFiles(root: string, prefix = ''): string[] {
  return readdirSync(path.join(root, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(prefix, entry.name);
    return entry.isDirectory() ? listFiles(root, relative) : [relative];
  });
}

/**
 * Writes the scaffold into `dir` (created when missing).
 * @throws LadderError `invalid_option` when `dir` is a file, or when scaffold files exist and
 *   `force` is not set (the message lists them).
 */
export function initApp(dir: string, options: InitOptions = {}): InitReport {
  const target = path.resolve(dir);
  if (existsSync(target) && !statSync(target).isDirectory()) throw new LadderError('invalid_option', `init: ${dir} is a file, not a folder`);
  const source = templateDir();
  const files = listFiles(source).filter((file) => file !== 'gitignore');
  const destinationOf = (file: string): string => RENAMED[file] ?? file;
  const existing = files.map(destinationOf).filter((file) => existsSync(path.join(target, file)));
  if (existing.length > 0 && options.force !== true) {
    throw new LadderError('invalid_option', `init: ${existing.length} file${existing.length === 1 ? '' : 's'} of the scaffold exist in ${dir}: ${existing.sort().join(', ')}; pass --force to overwrite them`);
  }
  mkdirSync(target, { recursive: true });
  for (const file of files) {
    const destination = path.join(target, destinationOf(file));
    mkdirSync(path.dirname(destination), { recursive: true });
    cpSync(path.join(source, file), destination);
  }
  appendMissingLines(path.join(target, '.gitignore'), readFileSync(path.join(source, 'gitignore'), 'utf8'));
  const scripts = writePackageJson(target);
  return { dir: target, written: [...files.map(destinationOf), '.gitignore', 'package.json'].sort(), scripts };
}

function appendMissingLines(file: string, template: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const have = new Set(current.split('\n').map((line) => line.trim()));
  const missing = template.split('\n').filter((line) => line.trim() !== '' && !have.has(line.trim()));
  if (missing.length === 0) return;
  writeFileSync(file, `${current}${current === '' || current.endsWith('\n') ? '' : '\n'}${missing.join('\n')}\n`);
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(findPackageRoot(), 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/** Creates package.json, or adds the missing scripts and dev dependencies to the existing one. */
function writePackageJson(target: string): InitReport['scripts'] {
  const file = path.join(target, 'package.json');
  let manifest: Record<string, unknown>;
  if (existsSync(file)) {
    try {
      manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new LadderError('invalid_option', `init: ${file} is not valid JSON (${(error as Error).message})`, { cause: error });
    }
  } else {
    manifest = { name: path.basename(target).toLowerCase().replace(/[^a-z0-9._-]+/g, '-') || 'my-app', private: true };
  }
  const scripts = { ...((manifest['scripts'] as Record<string, string> | undefined) ?? {}) };
  const added: string[] = [];
  const kept: string[] = [];
  for (const [name, command] of Object.entries(SCAFFOLD_SCRIPTS)) {
    if (scripts[name] === undefined) {
      scripts[name] = command;
      added.push(name);
    } else if (scripts[name] !== command) {
      kept.push(name);
    }
  }
  const dependencies = (manifest['dependencies'] as Record<string, string> | undefined) ?? {};
  const devDependencies = { ...((manifest['devDependencies'] as Record<string, string> | undefined) ?? {}) };
  if (dependencies['text2sql-ladder'] === undefined && devDependencies['text2sql-ladder'] === undefined) devDependencies['text2sql-ladder'] = `^${packageVersion()}`;
  if (dependencies['promptfoo'] === undefined && devDependencies['promptfoo'] === undefined) devDependencies['promptfoo'] = PROMPTFOO_VERSION;
  writeFileSync(file, `${JSON.stringify({ ...manifest, scripts, devDependencies }, null, 2)}\n`);
  return { added, kept };
}

/** What `init` prints: the files, the scripts, and the next steps. */
export function renderInitReport(report: InitReport, dir: string): string {
  const lines = [`text2sql-ladder init: wrote ${report.written.length} files in ${dir}`, ...report.written.map((file) => `  ${file}`)];
  if (report.scripts.added.length > 0) lines.push(`package.json scripts added: ${report.scripts.added.join(', ')}`);
  if (report.scripts.kept.length > 0) lines.push(`package.json scripts kept as they were (yours differ): ${report.scripts.kept.join(', ')}`);
  const cd = dir === '.' ? '' : `cd ${dir} && `;
  lines.push(
    '',
    'Next:',
    `  ${cd}npm install            # if text2sql-ladder and promptfoo are not installed yet`,
    '  npm run eval               # the ladder on datasets/questions.yaml with the recorded outputs',
    '  npm run view               # the promptfoo viewer',
    'Then put your schema in fixtures/shop (or a new fixture folder), your questions in datasets/questions.yaml,',
    'and record your app\'s outputs in recordings/ or enable a real provider in promptfooconfig.yaml.',
  );
  return `${lines.join('\n')}\n`;
}
