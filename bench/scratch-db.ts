import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * With a PostgreSQL URL: a fresh database of its own on that server (so a bench never meets
 * another run's keys or rows), and `drop()` to remove it. Without: undefined (PGlite).
 */
export async function scratchDatabase(
  serverUrl: string | undefined,
): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  if (!serverUrl) return undefined;
  const name = `stream_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
