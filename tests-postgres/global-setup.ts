/**
 * One temporary folder for the run's private servers (short: the socket path must fit 107 bytes),
 * removed at the end; a server still running there at the end fails the run.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync('/tmp/t2sl-pg-');
  // As root the server runs as another user, who must be able to enter the folder.
  chmodSync(dir, 0o755);
  process.env['TEXT2SQL_LADDER_PG_TEST_DIR'] = dir;
  return () => {
    const pidFile = path.join(dir, 'server', '15', 'data', 'postmaster.pid');
    const stray = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : undefined;
    rmSync(dir, { recursive: true, force: true });
    if (stray !== undefined) {
      try {
        process.kill(stray, 'SIGKILL');
      } catch {
        return;
      }
      throw new Error(`a private PostgreSQL server (pid ${stray}) was still running after the tests`);
    }
  };
}
