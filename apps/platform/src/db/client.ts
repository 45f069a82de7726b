import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { join } from 'node:path';
import * as schema from './schema/index.ts';
import { lockDataDir } from './lock.ts';
import { resilientPool } from './pg-pool.ts';

export { schema };

/** One type for both drivers: every query in the platform is written once against it. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction handle; inside a transaction always use it, never the outer db (PGlite would wait forever). */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either; functions that may run inside or outside a transaction take this. */
export type DbOrTx = Db | Tx;

export interface Database {
  db: Db;
  driver: 'pglite' | 'postgres';
  /** The server's URL, for work that needs a connection of its own (migrations, LISTEN). */
  url?: string;
  /**
   * Calls `onNotify` with the payload of every NOTIFY on `channel` (delivered when the notifying
   * transaction commits). Answers the function that stops listening.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string | undefined;
  dataDir?: string;
  /** An already-open PGlite (tests clone a migrated snapshot into one). */
  pglite?: PGlite;
  /** Connections of the `pg` pool (DATABASE_POOL_SIZE, default 10). */
  poolSize?: number;
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = resilientPool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
    const url = opts.databaseUrl;
    return {
      db: drizzlePg(pool, { schema }) as unknown as Db,
      driver: 'postgres',
      url,
      listen: (channel, onNotify) => listenPg(url, channel, onNotify),
      close: () => pool.end(),
    };
  }
  if (opts.pglite) {
    const client = opts.pglite;
    return {
      db: drizzlePglite(client, { schema }) as unknown as Db,
      driver: 'pglite',
      listen: (channel, onNotify) => client.listen(channel, onNotify),
      close: () => client.close(),
    };
  }
  if (!opts.dataDir) throw new Error('openDatabase needs databaseUrl, dataDir or pglite');
  const release = lockDataDir(opts.dataDir);
  try {
    const client = await PGlite.create({ dataDir: join(opts.dataDir, 'pgdata') });
    return {
      db: drizzlePglite(client, { schema }) as unknown as Db,
      driver: 'pglite',
      listen: (channel, onNotify) => client.listen(channel, onNotify),
      close: async () => {
        await client.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * LISTEN on a connection of its own (a pooled one would be handed to other queries). A dropped
 * connection is re-opened after a second; notifications sent meanwhile are lost, which is why the
 * outbox also polls.
 */
async function listenPg(
  url: string,
  channel: string,
  onNotify: (payload: string) => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const reconnect = () => {
    if (!stopped) retry = setTimeout(() => void connect().catch(reconnect), 1_000);
  };
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (msg) => {
      if (msg.channel === channel) onNotify(msg.payload ?? '');
    });
    c.on('error', () => {
      if (client !== c || stopped) return;
      client = undefined;
      void c.end().catch(() => {});
      reconnect();
    });
    await c.connect();
    await c.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
    if (stopped) return void (await c.end());
    client = c;
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
