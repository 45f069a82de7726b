import { sql, type SQL } from 'drizzle-orm';

/** `ms` milliseconds as a PostgreSQL interval; job times are computed on the database clock. */
export function msInterval(ms: number): SQL {
  return sql`(${ms}::float8 * interval '1 millisecond')`;
}

/** Rows of a raw `execute`: node-postgres answers `{rows}`, PGlite too, other drivers an array. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows?: T[] }).rows ?? (result as T[]);
}
