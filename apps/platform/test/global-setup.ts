import { PGlite } from '@electric-sql/pglite';
import { writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: path of a tarball of a freshly migrated data folder. PostgreSQL: the template database. */
    migratedSnapshot: string;
  }
}

/**
 * Migrates once per test run; each test file then clones the result (a fresh PGlite costs ~5 s, a
 * restored snapshot ~1.5 s; on PostgreSQL a CREATE DATABASE ... TEMPLATE is near instant).
 */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `stream_tpl_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
    const tplUrl = new URL(url);
    tplUrl.pathname = `/${name}`;
    const database = await openDatabase({ databaseUrl: tplUrl.toString(), poolSize: 1 });
    await migrate(database);
    await database.close();
    project.provide('migratedSnapshot', name);
    return async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    };
  }
  const client = await PGlite.create();
  await migrate(await openDatabase({ pglite: client }));
  const dump = await client.dumpDataDir('none');
  await client.close();
  const dir = mkdtempSync(join(tmpdir(), 'stream-test-'));
  const file = join(dir, 'migrated.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('migratedSnapshot', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
