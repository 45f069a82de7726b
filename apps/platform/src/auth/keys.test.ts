import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigError } from '../config.ts';
import type { Database } from '../db/client.ts';
import { testDatabase } from '../../test/db.ts';
import { ensureSigningKey } from './keys.ts';

let database: Database;
beforeAll(async () => {
  database = await testDatabase();
});
afterAll(() => database?.close());

it('refuses to start with an ENCRYPTION_KEY other than the one the database was encrypted with', async () => {
  const original = randomBytes(32);
  await ensureSigningKey(database.db, original);
  await expect(ensureSigningKey(database.db, original)).resolves.toBeUndefined();
  const error = await ensureSigningKey(database.db, randomBytes(32)).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toMatch(/ENCRYPTION_KEY does not match/);
});
