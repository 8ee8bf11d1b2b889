/**
 * A V8 code cache for the SQL parser's generated code, kept on disk between runs. sql-parser-cst
 * is one 6.5 MB generated file (`lib/parser.js`): compiling it took about 180 ms of every start of
 * the parser thread (bounded-parse.ts), which a one-query `check` and the main job wait for; with
 * the cache it takes about 120 ms (most of what is left is reading the file, whose text V8 needs
 * to check the cache against). Node 20 has no compile cache of its own (`module.enableCompileCache`
 * came in Node 22), so the thread compiles that file through `vm.Script` with `cachedData`.
 *
 * - The cache file is named after the source file, its size and modification time, and V8's
 *   `cachedDataVersionTag()` (the V8 version, its flags and the CPU features), so a different
 *   Node, flag set or parser version never reads another's cache; V8 checks the data again itself
 *   and a rejected or unreadable cache is simply rewritten.
 * - It is written once per thread, after the first parse and before its answer (so it holds the
 *   functions a parse compiles, not only the file's top level, and a command that exits right after
 *   it still leaves it), to a temporary name and renamed: concurrent runs never read a torn file. A
 *   folder that cannot be written leaves the parser without a cache, never without a parse.
 * - Folder: `$TEXT2SQL_LADDER_CACHE_DIR/code`, else `$XDG_CACHE_HOME/text2sql-ladder/code`, else
 *   `~/.cache/text2sql-ladder/code` (the convention of the L5 suite cache).
 */
import os from 'node:os';
import path from 'node:path';

/**
 * The folder of the code cache (see the module doc); absolute.
 * @param env - the environment (default: this process's).
 */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env['TEXT2SQL_LADDER_CACHE_DIR'];
  if (explicit) return path.join(path.resolve(explicit), 'code');
  const xdg = env['XDG_CACHE_HOME'];
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
  return path.join(base, 'text2sql-ladder', 'code');
}

/** What {@link preloadWithCodeCache} did. */
export interface CodeCachePreload {
  /** `hit` a cache was read and accepted, `miss` none was there, `rejected` V8 refused it, `off` the file was loaded without a cache. */
  readonly cache: 'hit' | 'miss' | 'rejected' | 'off';
  /** Writes the cache when this load did not read one (call once the code has run); never throws. */
  save(): void;
}

/**
 * Compiles the CommonJS file `file` with a code cache from `cacheDir` and puts it in `load.cache`,
 * so that a later `load()` of it (from the package that needs it) returns this module. Runs inside
 * the parser thread from its source text, so it is self-contained: it may use only its arguments
 * and globals. Never throws: on any failure the file is left to a plain `load()`.
 *
 * @param load - the thread's `require`.
 * @param file - absolute path of the CommonJS file to compile.
 * @param cacheDir - the cache folder ({@link codeCacheDir}); created when missing.
 * @returns whether a cache was used, and how to write one.
 */
export function preloadWithCodeCache(load: NodeJS.Require, file: string, cacheDir: string): CodeCachePreload {
  const off: CodeCachePreload = { cache: 'off', save: () => {} };
  try {
    const fs = load('node:fs') as typeof import('node:fs');
    const vm = load('node:vm') as typeof import('node:vm');
    const nodePath = load('node:path') as typeof import('node:path');
    const v8 = load('node:v8') as typeof import('node:v8');
    const { Module, createRequire } = load('node:module') as typeof import('node:module') & { Module: new (id: string) => { exports: unknown; filename: string; loaded: boolean } };
    const { isAscii } = load('node:buffer') as typeof import('node:buffer');
    if (load.cache[file] !== undefined) return off;
    const bytes = fs.readFileSync(file);
    const stats = fs.statSync(file);
    // The generated parser is ASCII: read as Latin-1, the same text without a UTF-8 decode.
    const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    const stamp = `${stats.size}-${Math.trunc(stats.mtimeMs)}-${v8.cachedDataVersionTag()}`;
    const cacheFile = nodePath.join(cacheDir, `${nodePath.basename(file)}-${stamp}.v8cache`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
    const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
    const script = new vm.Script(wrapped, { filename: file, ...(cachedData !== undefined ? { cachedData } : {}) });
    const compiled = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
    const module = new Module(file);
    module.filename = file;
    compiled.call(module.exports, module.exports, createRequire(file), module, file, nodePath.dirname(file));
    module.loaded = true;
    load.cache[file] = module as unknown as NodeJS.Module;
    const cache = cachedData === undefined ? 'miss' : script.cachedDataRejected === true ? 'rejected' : 'hit';
    let saved = cache === 'hit';
    return {
      cache,
      save() {
        if (saved) return;
        saved = true;
        try {
          fs.mkdirSync(cacheDir, { recursive: true });
          const prefix = `${nodePath.basename(file)}-`;
          // A process killed in the middle of a write leaves its temporary file (`.<pid>-<ms>.tmp`):
          // drop those whose process is gone, and any older than an hour (a pid reused).
          const gone = (pid: number): boolean => {
            try {
              process.kill(pid, 0);
              return false;
            } catch (error) {
              return (error as { code?: string }).code === 'ESRCH';
            }
          };
          for (const name of fs.readdirSync(cacheDir)) {
            const stale = nodePath.join(cacheDir, name);
            if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
            const pid = Number(/\.(\d+)-\d+\.tmp$/.exec(name)?.[1]);
            if ((Number.isSafeInteger(pid) && pid !== process.pid && gone(pid)) || Date.now() - fs.statSync(stale).mtimeMs > 3_600_000) fs.rmSync(stale, { force: true });
          }
          const temporary = `${cacheFile}.${process.pid}-${Date.now()}.tmp`;
          fs.writeFileSync(temporary, script.createCachedData());
          fs.renameSync(temporary, cacheFile);
        } catch {
          // No cache this time: a read-only or full disk costs the next start its compile, nothing else.
        }
      },
    };
  } catch {
    return off;
  }
}
