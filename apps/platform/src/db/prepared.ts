import type { DbOrTx } from './client.ts';

/**
 * A statement built once per database handle instead of once per request. Drizzle builds the SQL
 * text of a query every time it runs (a measurable share of a request on the hot path); a
 * prepared query keeps its text and, on PostgreSQL, runs as a named server-side prepared
 * statement (parsed once per connection). Use it for the queries every authenticated request
 * makes; `name` must be unique across the platform.
 */
export function prepared<T>(name: string, build: (db: DbOrTx, name: string) => T): (db: DbOrTx) => T {
  const byDb = new WeakMap<DbOrTx, T>();
  return (db) => {
    let query = byDb.get(db);
    if (query === undefined) byDb.set(db, (query = build(db, name)));
    return query;
  };
}
