import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { initApp, scaffoldPromptfooVersion } from '../src/cli/init.js';
import { checkToolOnNode, installedPackage, peerRange, promptfooForNode, TESTED_NODE, TESTED_RELEASES } from '../src/supported-versions.js';
import { tempDir } from './compare/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; peerDependencies: Record<string, string> };

describe('what package.json says is what is tested', () => {
  it('engines and the peer ranges are the tested releases', () => {
    expect(manifest.engines.node).toBe(TESTED_NODE);
    expect(manifest.peerDependencies['promptfoo']).toBe(peerRange('promptfoo'));
    expect(manifest.peerDependencies['vitest']).toBe(peerRange('vitest'));
    expect([peerRange('promptfoo'), peerRange('vitest')]).toEqual(['^0.121.20 || ^0.123.1', '^3.2.0 || ^4.1.0 || ^5.1.0']);
  });

  it('each release CI installs lies in its range, and is tested on a Node package.json allows', () => {
    for (const releases of Object.values(TESTED_RELEASES)) {
      for (const release of releases) {
        expect(semver.satisfies(release.version, release.range), `${release.version} in ${release.range}`).toBe(true);
        expect(semver.subset(release.node, TESTED_NODE), `${release.node} within ${TESTED_NODE}`).toBe(true);
      }
    }
  });
});

/** One run of `.ci/run`'s matrix: a tool release on a Node release. */
interface CiRun {
  readonly tool: 'promptfoo' | 'vitest';
  readonly version: string;
  readonly node: string;
  readonly refused: boolean;
}

/** The matrix `.ci/run` runs: its test-pack.sh and test-app.sh lines. */
function ciRuns(): CiRun[] {
  const script = readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8');
  const runs: CiRun[] = [];
  for (const line of script.split('\n').filter((text) => /^bash scripts\/test-(pack|app)\.sh /.test(text))) {
    const flag = (name: string): string | undefined => new RegExp(`--${name} (\\S+)`).exec(line)?.[1];
    const node = flag('node');
    if (node === undefined) throw new Error(`.ci/run runs an app test without --node: ${line}`);
    if (line.includes('test-pack.sh')) {
      for (const version of (flag('vitest') ?? '').split(',')) runs.push({ tool: 'vitest', version, node, refused: false });
      const refused = flag('refuse');
      if (refused !== undefined) runs.push({ tool: 'vitest', version: refused, node, refused: true });
    } else {
      runs.push({ tool: 'promptfoo', version: flag('promptfoo')!, node, refused: false });
    }
  }
  return runs;
}

describe('what .ci/run runs is what this file lists', () => {
  const runs = ciRuns();

  it('reads the matrix off .ci/run', () => {
    expect(runs.map((run) => `${run.tool} ${run.version} on ${run.node}${run.refused ? ' (refused)' : ''}`)).toEqual([
      'vitest 4.1.12 on 20.20.2',
      'vitest 3.2.7 on 20.20.2',
      'vitest 5.1.2 on 20.20.2 (refused)',
      'vitest 5.1.2 on 22.22.0',
      'vitest 4.1.12 on 22.22.0',
      'vitest 3.2.7 on 22.22.0',
      'promptfoo 0.121.20 on 20.20.2',
      'promptfoo 0.123.1 on 22.22.0',
    ]);
  });

  it('every pair CI runs is a tested pair, and the refused one is not', () => {
    for (const run of runs) {
      expect(semver.satisfies(run.node, TESTED_NODE), `Node ${run.node}`).toBe(true);
      expect(checkToolOnNode(run.tool, run.version, run.node).kind === 'tested', `${run.tool} ${run.version} on ${run.node}`).toBe(!run.refused);
    }
  });

  it('every tested release runs in CI on each Node line it is listed for', () => {
    for (const [tool, releases] of Object.entries(TESTED_RELEASES)) {
      for (const release of releases) {
        for (const line of release.node.split('||').map((part) => part.trim())) {
          const ran = runs.some((run) => run.tool === tool && run.version === release.version && !run.refused && semver.satisfies(run.node, line));
          expect(ran, `${tool} ${release.version} on Node ${line}`).toBe(true);
        }
      }
    }
  });
});

describe('promptfooForNode (the release init pins)', () => {
  it.each([
    ['v20.20.0', '0.121.20'],
    ['v20.20.2', '0.121.20'],
    ['v22.22.0', '0.123.1'],
    ['v22.23.5', '0.123.1'],
    ['v20.19.0', undefined],
    ['v22.12.0', undefined],
    ['v24.1.0', undefined],
  ])('Node %s → promptfoo %s', (node, version) => {
    expect(promptfooForNode(node)).toBe(version);
  });

  it('init falls back to the newest tested release on an untested Node', () => {
    expect([scaffoldPromptfooVersion('v20.20.2'), scaffoldPromptfooVersion('v22.22.0'), scaffoldPromptfooVersion('v24.1.0')]).toEqual(['0.121.20', '0.123.1', '0.123.1']);
  });
});

describe('checkToolOnNode', () => {
  it('tested pairs', () => {
    const pairs = [
      ['promptfoo', '0.121.20', 'v20.20.2', '^20.20.0 || >=22.22.0'],
      ['promptfoo', '0.123.1', 'v22.22.0', '>=22.22.0'],
      ['vitest', '3.2.7', 'v20.20.2', '^18.0.0 || ^20.0.0 || >=22.0.0'],
      ['vitest', '4.1.0', 'v22.23.5', undefined],
      ['vitest', '5.1.2', 'v22.22.0', '^22.12.0 || ^24.0.0 || >=26.0.0'],
    ] as const;
    expect(pairs.map(([tool, version, node, engines]) => checkToolOnNode(tool, version, node, engines).kind)).toEqual(['tested', 'tested', 'tested', 'tested', 'tested']);
  });

  it('promptfoo 0.123 on Node 20: unsupported, with the Node it needs and the release for this Node', () => {
    expect(checkToolOnNode('promptfoo', '0.123.1', 'v20.20.2', '>=22.22.0')).toEqual({
      kind: 'unsupported',
      message: 'promptfoo 0.123.1 does not run on Node 20.20.2 (its engines field says >=22.22.0); use Node ^22.22.0, or on this Node: npm install --save-dev promptfoo@0.121.20',
    });
  });

  it('vitest 5 on Node 20: unsupported', () => {
    expect(checkToolOnNode('vitest', '5.1.2', 'v20.20.2', '^22.12.0 || ^24.0.0 || >=26.0.0')).toEqual({
      kind: 'unsupported',
      message: 'vitest 5.1.2 does not run on Node 20.20.2 (its engines field says ^22.12.0 || ^24.0.0 || >=26.0.0); use Node ^22.22.0, or on this Node: npm install --save-dev vitest@4.1.12',
    });
  });

  it('a release outside the tested ranges, or a tested release on another Node: untested, with what is tested', () => {
    expect(checkToolOnNode('promptfoo', '0.122.2', 'v22.23.5', '>=22.22.0')).toEqual({
      kind: 'untested',
      message: 'promptfoo 0.122.2 on Node 22.23.5 is not a pair text2sql-ladder is tested with (tested: promptfoo ^0.123.1 on Node ^22.22.0; promptfoo ^0.121.20 on Node ^20.20.0); on this Node: npm install --save-dev promptfoo@0.123.1',
    });
    expect(checkToolOnNode('promptfoo', '0.121.20', 'v22.22.0', '^20.20.0 || >=22.22.0').kind).toBe('untested');
    expect(checkToolOnNode('vitest', '4.0.18', 'v24.1.0')).toEqual({
      kind: 'untested',
      message: 'vitest 4.0.18 on Node 24.1.0 is not a pair text2sql-ladder is tested with (tested: vitest ^5.1.0 on Node ^22.22.0; vitest ^4.1.0 on Node ^20.20.0 || ^22.22.0; vitest ^3.2.0 on Node ^20.20.0 || ^22.22.0)',
    });
  });

  it('an engines field that is not a range is ignored', () => {
    expect(checkToolOnNode('vitest', '4.1.12', 'v20.20.2', 'any node you like').kind).toBe('tested');
  });
});

describe('installedPackage', () => {
  it('reads the version and engines of the package Node would find, without loading it', () => {
    expect(installedPackage('promptfoo', path.join(ROOT, 'package.json'))).toEqual({ version: '0.121.20', node: '^20.20.0 || >=22.22.0' });
  });

  it('is undefined for a package that is not installed there', () => {
    expect(installedPackage('text2sql-ladder-no-such-package', path.join(ROOT, 'package.json'))).toBeUndefined();
  });
});

describe('init and the running Node', () => {
  const fakePromptfoo = (app: string, version: string, node: string): void => {
    mkdirSync(path.join(app, 'node_modules', 'promptfoo'), { recursive: true });
    writeFileSync(path.join(app, 'node_modules', 'promptfoo', 'package.json'), JSON.stringify({ name: 'promptfoo', version, engines: { node } }));
  };
  const pinned = (app: string): unknown => (JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['promptfoo'];

  it('pins the newest promptfoo tested on that Node, with no warning', () => {
    const dir = tempDir('ladder-init-node-');
    const on20 = initApp(path.join(dir, 'on20'), { node: 'v20.20.2' });
    const on22 = initApp(path.join(dir, 'on22'), { node: 'v22.22.0' });
    expect([pinned(on20.dir), pinned(on22.dir), on20.warnings, on22.warnings]).toEqual(['0.121.20', '0.123.1', [], []]);
  });

  it('warns about a promptfoo installed in the app that does not run on this Node, and about an untested Node', () => {
    const dir = tempDir('ladder-init-node-');
    const app = path.join(dir, 'app');
    fakePromptfoo(app, '0.123.1', '>=22.22.0');
    expect(initApp(app, { node: 'v20.20.2' }).warnings).toEqual([
      'the installed promptfoo 0.123.1 does not run on Node 20.20.2 (its engines field says >=22.22.0); use Node ^22.22.0, or on this Node: npm install --save-dev promptfoo@0.121.20',
    ]);
    expect(initApp(path.join(dir, 'other'), { node: 'v24.1.0' }).warnings).toEqual([
      'Node 24.1.0 is not a release text2sql-ladder is tested on (^20.20.0 || ^22.22.0); package.json pins promptfoo 0.123.1, the newest tested release',
    ]);
  });
});
