import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, testDatabase } from '../../test/db.ts';
import { PLATFORM_ERRORS } from '../http/api.ts';
import { rowsOf } from './sql.ts';
import type { Database } from './client.ts';
import { isConnectionLost } from './errors.ts';
import { resilientPool } from './pg-pool.ts';

describe('isConnectionLost', () => {
  it('knows a dropped connection through the driver and drizzle, and nothing else', () => {
    const lost = [{ code: '57P01' }, { code: '08006' }, { code: 'ECONNRESET' }, new Error('Connection terminated unexpectedly'), new Error('Failed query: select 1', { cause: { code: '57P01' } })];
    for (const err of lost) expect(isConnectionLost(err)).toBe(true);
    for (const err of [{ code: '23505' }, new Error('boom'), null, 'Connection terminated']) expect(isConnectionLost(err)).toBe(false);
    expect(PLATFORM_ERRORS.classify(new Error('boom'))).toBeUndefined();
  }); // prettier-ignore
});

/** Connections dropped by the server (restart, failover, pg_terminate_backend) while in use. */
describe.skipIf(!onPostgres)('a PostgreSQL connection dropped while in use', () => {
  let database: Database & { url?: string };
  let admin: pg.Client;
  beforeAll(async () => {
    database = await testDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await database?.close();
  });
  const terminate = (pid: number) => admin.query('select pg_terminate_backend($1)', [pid]);

  it('fails its transaction only: the process lives on and the pool serves the next request', async () => {
    const { db } = database;
    const failed = await db
      .transaction(async (tx) => {
        const [row] = rowsOf<{ pid: number }>(await tx.execute(sql`select pg_backend_pid() as pid`));
        await terminate(row!.pid);
        await tx.execute(sql`select 1`);
      })
      .catch((err: Error) => err);
    expect(failed).toBeInstanceOf(Error);
    // Answered 503 temporarily_unavailable (send it again), not 500.
    expect(PLATFORM_ERRORS.classify(failed)).toMatchObject({ status: 503, code: 'temporarily_unavailable' });
    // Without an error listener on the checked-out connection, the process ended here.
    expect(rowsOf(await db.execute(sql`select 2 as n`))).toEqual([{ n: 2 }]);
  });

  it('gives the connection back when it dropped before begin, so the pool never runs dry', async () => {
    const pool = resilientPool({ connectionString: database.url, max: 1 });
    const connect = pool.connect.bind(pool);
    let dropNext = true;
    // The server drops the connection between its checkout and `begin`.
    (pool as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
      const client = await connect();
      if (dropNext) {
        dropNext = false;
        const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
        await terminate(rows[0]!.pid);
        await new Promise((r) => setTimeout(r, 100)); // the termination reaches the client
      }
      return client;
    };
    const db = drizzle(pool);
    try {
      await expect(db.transaction(async () => 'never')).rejects.toThrow();
      expect([pool.totalCount - pool.idleCount, pool.waitingCount]).toEqual([0, 0]); // none kept
      expect(await db.transaction(async (tx) => (await tx.execute(sql`select 3 as n`)).rows)).toEqual([
        { n: 3 },
      ]);
    } finally {
      await pool.end();
    }
  });
});
