import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * PGlite keeps the database in one process's memory and writes it back to the folder: a second
 * process opening the same folder loses committed rows silently. This lock file (created with
 * O_EXCL, holding the owner's pid) makes the second opener fail loudly instead.
 */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The data folder ${dataDir} is in use by process ${pid}. Stop it, or use another DATA_DIR; ` +
        'the stream-platform CLI reaches a running server through its admin endpoint instead.',
    );
  }
}

const LOCK_FILE = 'platform.lock';

/**
 * Creates `dir` readable by its owner only (0700) or, when it exists, makes it so again. The folder
 * holds the database (PGlite writes its files 0666 less the umask: its WAL has tokens, e-mails,
 * phones), the encryption key and the admin token; a private folder keeps every file in it private,
 * whatever their own modes. Run on every start, so a folder made or loosened elsewhere is tightened.
 */
export function ensurePrivateDir(dir: string): void {
  // One level at a time from the nearest folder that exists: Node 20's recursive mkdirSync spins
  // forever under /proc, and a file in the way is named plainly.
  const missing: string[] = [];
  let at = resolve(dir);
  while (!existsSync(at)) {
    missing.unshift(at);
    at = dirname(at);
  }
  if (!statSync(at).isDirectory()) throw new Error(`${at} is a file, not a folder`);
  for (const folder of missing) mkdirSync(folder, { mode: 0o700 });
  chmodSync(dir, 0o700);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of the live process holding the folder, if any. */
export function lockHolder(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, LOCK_FILE), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the folder's lock (clearing a stale one a dead process left); returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  ensurePrivateDir(dataDir);
  const file = join(dataDir, LOCK_FILE);
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = lockHolder(dataDir);
      if (holder !== undefined && holder !== process.pid) throw new DataDirLockedError(dataDir, holder);
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}
