import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { fileURLToPath } from 'node:url';
import type { Database } from './client.ts';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

/**
 * Applies the committed SQL migrations. On PostgreSQL an advisory lock makes concurrent starts of
 * several platform processes take turns instead of racing.
 */
export async function migrate(database: Database): Promise<void> {
  const config = { migrationsFolder: MIGRATIONS_FOLDER };
  if (database.driver === 'pglite') {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await migratePglite(database.db as any, config);
    return;
  }
  // A connection of its own, so the session-level advisory lock and the migration share it.
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock(727274)');
    await migratePg(drizzlePg(client), config);
  } finally {
    await client.end();
  }
}

/** Number of committed migrations not yet applied (0 means ready). */
export async function pendingMigrations(database: Database): Promise<number> {
  const files = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  try {
    const result = await database.db.execute<{ n: number }>(
      sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
    );
    const rows =
      (result as unknown as { rows: { n: number }[] }).rows ?? (result as unknown as { n: number }[]);
    return files.length - Number(rows[0]?.n ?? 0);
  } catch {
    return files.length;
  }
}
