import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Another server holds the data directory. */
export class DataDirLockedError extends Error {}

/** Data directories this process holds, so a second server in the same process is refused too. */
const held = new Set<string>();

/** Whether `pid` is a running Node process (on Linux, by its command line; elsewhere, any process). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const cmdline = `/proc/${pid}/cmdline`;
  // A pid reused by something else after a kill -9 is not an Earmark server.
  return !existsSync('/proc/self') || (existsSync(cmdline) && /node|tsx/.test(readFileSync(cmdline, 'utf8')));
}

/**
 * Takes `<dataDir>/earmark.lock` for this server's life: created exclusively, holding the pid and
 * the start time. A lock whose process is gone (a kill -9, a crash) is stale and taken over; a
 * live one refuses with what to do. Two servers on one data dir would each think they own the
 * served copies, the backups' timing and the vote writer. Returns the release.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(resolve(dataDir), 'earmark.lock');
  mkdirSync(resolve(dataDir), { recursive: true });
  if (held.has(file)) throw new DataDirLockedError(`the data directory ${resolve(dataDir)} is already in use by another Earmark server in this process`);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid}\n${new Date().toISOString()}\n`);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const [pidText, since] = readFileSync(file, 'utf8').split('\n');
      const pid = Number(pidText);
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && running(pid)) {
        throw new DataDirLockedError(
          `the data directory ${resolve(dataDir)} is already in use by another Earmark server (pid ${pid}, since ${since || 'unknown'}). ` +
            `Stop that server first, or give this one another --data directory. (If no such server runs, remove ${file}.)`,
        );
      }
      // Stale: its server is gone. Taken over once; a second EEXIST means another start raced us.
      unlinkSync(file);
    }
  }
  held.add(file);
  return () => {
    held.delete(file);
    try {
      if (readFileSync(file, 'utf8').split('\n')[0] === String(process.pid)) unlinkSync(file);
    } catch {
      // Already gone (the data dir removed): nothing to release.
    }
  };
}
