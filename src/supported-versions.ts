/**
 * The versions text2sql-ladder is tested with, in one place: the Node releases (package.json
 * `engines`), the promptfoo and vitest releases (its optional `peerDependencies`), and on which
 * Node each is run. CI runs every pair listed here against the packed tarball (`.ci/run`; a unit
 * test checks that package.json and `.ci/run` say what this file says), so a pair outside it is
 * one nobody ran.
 *
 * npm checks a peer range but cannot tie it to a Node release: it installs promptfoo 0.123 on
 * Node 20, where promptfoo stops at start, and vitest 5 on Node 20, where its reporter crashes on
 * the first failing test. {@link checkToolOnNode} says so, with what to install instead; `init`
 * scaffolds {@link promptfooForNode}.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

/** The Node releases text2sql-ladder runs on (package.json `engines.node`). */
export const TESTED_NODE = '^20.20.0 || ^22.22.0';

/** A tool's releases that CI runs, and the Node releases it runs them on. */
export interface TestedReleases {
  /** The tool's versions (a caret range: one line of the package's peer range). */
  readonly range: string;
  /** The version of that range CI installs (and `init` pins, for promptfoo). */
  readonly version: string;
  /** The Node releases CI runs it on. */
  readonly node: string;
}

/** The tools whose releases are listed here: the optional peers a front end runs in. */
export type Tool = 'promptfoo' | 'vitest';

/** What CI runs, per tool, newest first. */
export const TESTED_RELEASES: Readonly<Record<Tool, readonly TestedReleases[]>> = {
  promptfoo: [
    // promptfoo 0.122 and later need Node >= 22.22 (their `engines`).
    { range: '^0.123.1', version: '0.123.1', node: '^22.22.0' },
    { range: '^0.121.20', version: '0.121.20', node: '^20.20.0' },
  ],
  vitest: [
    // vitest 5 needs Node ^22.12 (its `engines`).
    { range: '^5.1.0', version: '5.1.2', node: '^22.22.0' },
    { range: '^4.1.0', version: '4.1.12', node: '^20.20.0 || ^22.22.0' },
    { range: '^3.2.0', version: '3.2.7', node: '^20.20.0 || ^22.22.0' },
  ],
};

/**
 * The peer range package.json lists for a tool: its tested ranges, oldest first, joined with `||`.
 * @param tool - promptfoo or vitest.
 */
export function peerRange(tool: Tool): string {
  return TESTED_RELEASES[tool].map((release) => release.range).reverse().join(' || ');
}

/**
 * The promptfoo release `init` pins: the newest tested one CI runs on this Node, or `undefined`
 * when none is tested on it (a Node outside {@link TESTED_NODE}).
 * @param node - a Node version, e.g. `process.version` (`v22.22.0`).
 */
export function promptfooForNode(node: string): string | undefined {
  return TESTED_RELEASES.promptfoo.find((release) => semver.satisfies(node, release.node))?.version;
}

/** What {@link checkToolOnNode} found. */
export type ToolVerdict =
  /** CI runs this release of the tool on this Node. */
  | { readonly kind: 'tested' }
  /** Not a pair CI runs: it may work; the message says what is tested. */
  | { readonly kind: 'untested'; readonly message: string }
  /** The tool's own `engines` exclude this Node: it will not work; the message says what to install. */
  | { readonly kind: 'unsupported'; readonly message: string };

/**
 * Whether a release of promptfoo or vitest is tested on a Node release.
 * @param tool - promptfoo or vitest.
 * @param version - the tool's installed version, e.g. `0.123.1`.
 * @param node - the Node version, e.g. `process.version`.
 * @param toolEngines - the tool's own `engines.node` (from its package.json), when known.
 * @returns `tested`; `unsupported` when `toolEngines` excludes `node`; else `untested`. The
 *   messages are one line each and name both versions. Never throws (an unreadable version is
 *   `untested`).
 */
export function checkToolOnNode(tool: Tool, version: string, node: string, toolEngines?: string): ToolVerdict {
  const nodeVersion = semver.clean(node) ?? node;
  const releases = TESTED_RELEASES[tool];
  const forThisNode = releases.find((release) => semver.satisfies(nodeVersion, release.node));
  const install = forThisNode ? `npm install --save-dev ${tool}@${forThisNode.version}` : undefined;
  if (toolEngines !== undefined && semver.validRange(toolEngines) !== null && !semver.satisfies(nodeVersion, toolEngines)) {
    const sameLine = releases.find((release) => semver.satisfies(version, release.range));
    const remedy = [sameLine ? `use Node ${sameLine.node}` : undefined, install ? `on this Node: ${install}` : undefined].filter(Boolean).join(', or ');
    return { kind: 'unsupported', message: `${tool} ${version} does not run on Node ${nodeVersion} (its engines field says ${toolEngines})${remedy === '' ? '' : `; ${remedy}`}` };
  }
  if (releases.some((release) => semver.satisfies(version, release.range) && semver.satisfies(nodeVersion, release.node))) return { kind: 'tested' };
  const tested = releases.map((release) => `${tool} ${release.range} on Node ${release.node}`).join('; ');
  return { kind: 'untested', message: `${tool} ${version} on Node ${nodeVersion} is not a pair text2sql-ladder is tested with (tested: ${tested})${install ? `; on this Node: ${install}` : ''}` };
}

/** The fields of an installed package's package.json that the checks read. */
export interface InstalledPackage {
  readonly version: string;
  /** `engines.node`, when the package declares it. */
  readonly node?: string;
}

/**
 * The installed package `name` as Node would find it from `from` (a file or folder), read from its
 * package.json without loading it, or `undefined` when it is not installed there.
 * @param name - a package name, e.g. `promptfoo`.
 * @param from - where the lookup starts (default: this module).
 */
export function installedPackage(name: string, from: string = fileOfThisModule()): InstalledPackage | undefined {
  const paths = createRequire(from).resolve.paths(name) ?? [];
  for (const dir of paths) {
    const file = path.join(dir, name, 'package.json');
    if (!existsSync(file)) continue;
    try {
      // A package.json in the user's folder: a regular file of a sane size, never a FIFO or a device.
      const stats = statSync(file);
      if (!stats.isFile() || stats.size > 1 << 20) return undefined;
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown; engines?: { node?: unknown } };
      if (typeof manifest.version !== 'string') return undefined;
      const node = manifest.engines?.node;
      return { version: manifest.version, ...(typeof node === 'string' ? { node } : {}) };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function fileOfThisModule(): string {
  return fileURLToPath(import.meta.url);
}

/**
 * {@link checkToolOnNode} for the installed promptfoo or vitest (as Node finds it from this
 * package) on the running Node.
 * @param tool - promptfoo or vitest.
 * @param node - the Node version (default: the running one's).
 * @param installed - the tool's package fields (default: read with {@link installedPackage}).
 * @returns the verdict, or `undefined` when the tool is not installed.
 */
export function installedToolVerdict(tool: Tool, node: string = process.version, installed: InstalledPackage | undefined = installedPackage(tool)): ToolVerdict | undefined {
  return installed === undefined ? undefined : checkToolOnNode(tool, installed.version, node, installed.node);
}
