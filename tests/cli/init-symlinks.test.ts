/**
 * `init` never writes outside the folder it was given: a symbolic link inside it that leads out
 * (fixtures/shop → elsewhere) is misuse naming the link, and nothing is written anywhere.
 */
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/run-cli.js';
import { tempDir } from '../compare/helpers.js';

let dir: string;
beforeAll(() => {
  dir = tempDir('ladder-init-links-');
});

describe('init through a symbolic link', () => {
  it.each([
    ['fixtures/shop', (app: string, elsewhere: string) => {
      mkdirSync(path.join(app, 'fixtures'), { recursive: true });
      symlinkSync(elsewhere, path.join(app, 'fixtures', 'shop'));
    }],
    ['fixtures', (app: string, elsewhere: string) => {
      mkdirSync(app, { recursive: true });
      symlinkSync(elsewhere, path.join(app, 'fixtures'));
    }],
  ])('%s leading outside: exit 2 naming the link, nothing written there or in the folder', async (link, make) => {
    const app = path.join(dir, `app-${link.replace('/', '-')}`);
    const elsewhere = path.join(dir, `elsewhere-${link.replace('/', '-')}`);
    mkdirSync(elsewhere);
    make(app, elsewhere);
    const before = readdirSync(app, { recursive: true }).sort();
    const run = await runCliCaptured(['init', app], dir);
    expect(run.code).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toBe(`error: init: ${link} in ${app.replace(dir, '<dir>')} is a symbolic link to ${elsewhere.replace(dir, '<dir>')}, outside ${app.replace(dir, '<dir>')}; init writes only inside the folder it is given (remove the link, or init another folder)\n`);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(readdirSync(app, { recursive: true }).sort()).toEqual(before);
  });

  it('a link that stays inside the folder is followed', async () => {
    const app = path.join(dir, 'app-inside');
    mkdirSync(path.join(app, 'real-fixtures'), { recursive: true });
    symlinkSync(path.join(app, 'real-fixtures'), path.join(app, 'fixtures'));
    const run = await runCliCaptured(['init', app], dir);
    expect(run.code, run.err).toBe(0);
    expect(readdirSync(path.join(app, 'real-fixtures'))).toEqual(['shop']);
  });
});
