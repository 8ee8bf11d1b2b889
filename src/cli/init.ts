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
 * Nothing is written outside DIR: a symbolic link inside it that leads out (`fixtures/shop` →
 * elsewhere, a `package.json` linked to another project's) is misuse naming the link.
 * An existing `package.json` keeps its fields; missing scripts and dev dependencies are added.
 * An existing `.gitignore` gets the missing lines appended.
 *
 * The promptfoo pinned is the newest release tested on the running Node (supported-versions.ts):
 * promptfoo 0.122 and later refuse Node 20. A promptfoo already installed in the app that is not
 * tested on this Node, or a Node outside the tested releases, is a warning on stderr.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import semver from 'semver';
import { LadderError } from '../errors.js';
import { readUserText } from '../files/user-file.js';
import { findPackageRoot } from '../fixtures/package-root.js';
import { checkToolOnNode, installedPackage, promptfooForNode, TESTED_NODE, TESTED_RELEASES } from '../supported-versions.js';
import { applyCliConventions, cliIoOf, setExitCode } from './cli-io.js';
import type { CliIo } from './cli-io.js';

/** Template file (under `templates/app`) → path in the scaffold. Files not listed keep their path. */
const RENAMED: Readonly<Record<string, string>> = { 'env.ladder': '.env.ladder', 'env.online': '.env.online' };

/**
 * The promptfoo version the scaffold pins: the newest release tested on `node`, or the newest
 * tested release when `node` is not a tested Node.
 * @param node - a Node version (default: the running one's).
 */
export function scaffoldPromptfooVersion(node: string = process.version): string {
  return promptfooForNode(node) ?? TESTED_RELEASES.promptfoo[0]!.version;
}

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
  /** The Node version the pins are chosen for (default: the running one's, `process.version`). */
  readonly node?: string;
}

/** What `init` wrote. */
export interface InitReport {
  readonly dir: string;
  /** Files written, relative to `dir`, sorted. */
  readonly written: readonly string[];
  /** Scripts added to package.json; `kept` lists names that existed already. */
  readonly scripts: { readonly added: readonly string[]; readonly kept: readonly string[] };
  /** One line each: a promptfoo in the app, or a Node, that is not tested (the command prints them on stderr). */
  readonly warnings: readonly string[];
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
      for (const warning of report.warnings) io.stderr.write(`warning: ${warning}\n`);
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
 * @throws LadderError `invalid_option` when `dir` is a file, when a scaffold path passes through a
 *   symbolic link that leads outside `dir` (the message names it), or when scaffold files exist
 *   and `force` is not set (the message lists them).
 */
export function initApp(dir: string, options: InitOptions = {}): InitReport {
  const target = path.resolve(dir);
  if (existsSync(target) && !statSync(target).isDirectory()) throw new LadderError('invalid_option', `init: ${dir} is a file, not a folder`);
  const source = templateDir();
  const files = listFiles(source).filter((file) => file !== 'gitignore');
  const destinationOf = (file: string): string => RENAMED[file] ?? file;
  // Nothing is written through a symbolic link that leads out of the folder (fixtures/shop → elsewhere).
  const boundary = existsSync(target) ? realpathSync(target) : target;
  for (const file of [...files.map(destinationOf), '.gitignore', 'package.json']) checkInsideFolder(target, boundary, file, dir);
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
  const node = options.node ?? process.version;
  const scripts = writePackageJson(target, scaffoldPromptfooVersion(node));
  return { dir: target, written: [...files.map(destinationOf), '.gitignore', 'package.json'].sort(), scripts, warnings: versionWarnings(target, node) };
}

/**
 * Refuses a scaffold path under `target` that passes through a symbolic link leading outside
 * `boundary` (the folder's real path): each existing part of the path is checked, the file itself
 * included; a link that leads nowhere counts by where it points.
 * @throws LadderError `invalid_option` naming the link and where it leads.
 */
function checkInsideFolder(target: string, boundary: string, relative: string, dir: string): void {
  let current = target;
  for (const part of relative.split(/[\\/]/)) {
    current = path.join(current, part);
    const stats = lstatSync(current, { throwIfNoEntry: false });
    if (stats === undefined) return;
    if (!stats.isSymbolicLink()) continue;
    let leadsTo: string;
    try {
      leadsTo = realpathSync(current);
    } catch {
      leadsTo = path.resolve(path.dirname(current), readlinkSync(current));
    }
    const inside = path.relative(boundary, leadsTo);
    if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) {
      throw new LadderError('invalid_option', `init: ${path.relative(target, current)} in ${dir} is a symbolic link to ${leadsTo}, outside ${dir}; init writes only inside the folder it is given (remove the link, or init another folder)`);
    }
  }
}

/** A Node outside the tested releases, and a promptfoo installed in the app that is not tested on this Node. */
function versionWarnings(target: string, node: string): string[] {
  const warnings: string[] = [];
  const nodeVersion = semver.clean(node) ?? node;
  if (!semver.satisfies(nodeVersion, TESTED_NODE)) {
    warnings.push(`Node ${nodeVersion} is not a release text2sql-ladder is tested on (${TESTED_NODE}); package.json pins promptfoo ${scaffoldPromptfooVersion(node)}, the newest tested release`);
  }
  const promptfoo = installedPackage('promptfoo', path.join(target, 'package.json'));
  if (promptfoo !== undefined) {
    const verdict = checkToolOnNode('promptfoo', promptfoo.version, node, promptfoo.node);
    if (verdict.kind !== 'tested') warnings.push(`the installed ${verdict.message}`);
  }
  return warnings;
}

function appendMissingLines(file: string, template: string): void {
  const current = existsSync(file) ? readUserText(file, { what: '.gitignore', code: 'invalid_option', prefix: 'init: ' }) : '';
  const have = new Set(current.split('\n').map((line) => line.trim()));
  const missing = template.split('\n').filter((line) => line.trim() !== '' && !have.has(line.trim()));
  if (missing.length === 0) return;
  writeFileSync(file, `${current}${current === '' || current.endsWith('\n') ? '' : '\n'}${missing.join('\n')}\n`);
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(findPackageRoot(), 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/** Creates package.json, or adds the missing scripts and dev dependencies (promptfoo pinned to `promptfooVersion`) to the existing one. */
function writePackageJson(target: string, promptfooVersion: string): InitReport['scripts'] {
  const file = path.join(target, 'package.json');
  let manifest: Record<string, unknown>;
  if (existsSync(file)) {
    try {
      manifest = JSON.parse(readUserText(file, { what: 'package.json', code: 'invalid_option', prefix: 'init: ' })) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof LadderError) throw error;
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
  if (dependencies['promptfoo'] === undefined && devDependencies['promptfoo'] === undefined) devDependencies['promptfoo'] = promptfooVersion;
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
