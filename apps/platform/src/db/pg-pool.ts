import { sql, type SQL } from 'drizzle-orm';
import { NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres';
import pg from 'pg';

/**
 * What a PostgreSQL connection dropped under load (a server restart, a failover,
 * `pg_terminate_backend`) must not do: end the process, or take a pool slot for good.
 */

/**
 * A pool whose every connection has an `error` listener. pg-pool listens only while a connection is
 * idle; one dropped while checked out emitted an unhandled `error`, which ended the process. Its
 * query fails instead, and the pool discards it on release (it is no longer queryable).
 */
export function resilientPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', () => {}); // a dropped idle connection: replaced on next use
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** The parts of drizzle's session its transaction uses (internal to drizzle, hence this shape). */
interface Session {
  client: unknown;
  dialect: unknown;
  schema: unknown;
  options: unknown;
  transaction(fn: (tx: Tx) => Promise<unknown>, config?: unknown): Promise<unknown>;
}
interface Tx {
  execute(query: SQL): Promise<unknown>;
  getTransactionConfigSQL(config: unknown): SQL;
}
const Session = NodePgSession as unknown as new (...args: unknown[]) => Session;
const Transaction = NodePgTransaction as unknown as new (...args: unknown[]) => Tx;

/**
 * drizzle-orm 0.45's pool transaction runs `begin` outside its try: a connection dropped at that
 * moment was never released, and each such drop shrank the pool by one until every request waited
 * forever. This is the same transaction with the connection always released, and released with
 * the error (the pool then closes it) when `begin` or `rollback` failed on it.
 */
const proto = NodePgSession.prototype as unknown as Session;
const drizzleTransaction = proto.transaction;
proto.transaction = async function (this: Session, fn, config) {
  if (!(this.client instanceof pg.Pool)) return drizzleTransaction.call(this, fn, config);
  const client = await this.client.connect();
  const tx = new Transaction(
    this.dialect,
    new Session(client, this.dialect, this.schema, this.options),
    this.schema,
  );
  let broken: Error | undefined;
  try {
    await tx
      .execute(sql`begin${config ? sql` ${tx.getTransactionConfigSQL(config)}` : undefined}`)
      .catch((err: Error) => {
        broken = err;
        throw err;
      });
    try {
      const result = await fn(tx);
      await tx.execute(sql`commit`);
      return result;
    } catch (err) {
      await tx.execute(sql`rollback`).catch((e: Error) => (broken = e));
      throw err;
    }
  } finally {
    client.release(broken);
  }
};
