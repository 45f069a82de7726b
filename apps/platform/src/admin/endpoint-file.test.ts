import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../../test/db.ts';
import { loadConfig } from '../config.ts';
import { startPlatform } from '../server.ts';

/** A platform over an already-open database (as on PostgreSQL), logging into `lines`. */
async function start(dataDir: string, lines: { level: number; msg: string }[]) {
  const logs = new Writable({
    write(chunk, _enc, done) {
      for (const text of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(text));
      done();
    },
  });
  const config = {
    ...loadConfig({ DATA_DIR: dataDir, ENCRYPTION_KEY: randomBytes(32).toString('base64') }),
    port: 0,
    host: '127.0.0.1',
    publicUrl: '',
    sandbox: false,
  };
  const database = await testDatabase();
  const platform = await startPlatform(config, { database, logger: pino({ level: 'debug' }, logs) });
  return {
    platform,
    stop: async () => {
      await platform.stop();
      await database.close();
    },
  };
}

const root = mkdtempSync(join(tmpdir(), 'stream-admin-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('admin.json', () => {
  it('with no DATA_DIR folder (PostgreSQL, ENCRYPTION_KEY given): none written, no error logged, no folder made', async () => {
    const dataDir = join(root, 'absent');
    const lines: { level: number; msg: string }[] = [];
    const { platform, stop } = await start(dataDir, lines);
    try {
      expect((await fetch(`${platform.url}/healthz`)).status).toBe(200);
    } finally {
      await stop();
    }
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain('ENOENT');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('with a DATA_DIR folder: written 0600 while listening, removed on close', async () => {
    const dataDir = mkdtempSync(join(root, 'present-'));
    const lines: { level: number; msg: string }[] = [];
    const { platform, stop } = await start(dataDir, lines);
    const file = join(dataDir, 'admin.json');
    try {
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ url: platform.url, pid: process.pid });
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      await stop();
    }
    expect(existsSync(file)).toBe(false);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });
});
