import { PGlite } from '@electric-sql/pglite';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../src/db/client.ts';

/** True when the suite runs against a PostgreSQL server (DATABASE_URL) rather than PGlite. */
export const onPostgres = Boolean(process.env.DATABASE_URL);

/** A migrated database of its own for one test file; `close()` drops it. */
export async function testDatabase(): Promise<Database & { url?: string }> {
  const snapshot = inject('migratedSnapshot');
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `stream_t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${snapshot}`);
    const dbUrl = new URL(url);
    dbUrl.pathname = `/${name}`;
    const database = await openDatabase({ databaseUrl: dbUrl.toString(), poolSize: 5 });
    return {
      ...database,
      url: dbUrl.toString(),
      close: async () => {
        await database.close();
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      },
    };
  }
  const client = await PGlite.create({ loadDataDir: new Blob([readFileSync(snapshot)]) });
  return openDatabase({ pglite: client });
}
