import { getTableColumns, getTableName, type Column } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import pg from 'pg';
import type { DbOrTx } from './client.ts';

/**
 * Statements of the hot paths (an order's way through the platform, the outbox's own
 * bookkeeping), written once as SQL text and run as they are. Drizzle builds the text of a query
 * anew on every call, which on these paths cost more CPU than the statements themselves (see the
 * README's order benchmark); a `Statement` is parsed once per connection (a named prepared
 * statement on PostgreSQL) and its parameters are passed straight to the driver. Elsewhere, use
 * Drizzle.
 *
 * Parameters are positional (`$1`): pass JSON as `JSON.stringify(value)` with a `::jsonb` cast and
 * times as `Date`s. Rows come back as the driver parses them: `timestamptz` as `Date`, `jsonb` as
 * values, column names as written (alias them to camelCase with `as "camelCase"`).
 */
export interface Statement {
  /** Unique across the platform: the name of the prepared statement on PostgreSQL. */
  readonly name: string;
  readonly text: string;
}

export function statement(name: string, text: string): Statement {
  // The text is folded onto one line: a `--` comment would swallow the rest of the statement.
  if (text.includes('--')) throw new Error(`statement ${name}: no SQL comments; comment the code instead`);
  return { name, text: text.replace(/\s+/g, ' ').trim() };
}

interface PgLike {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}
interface PgliteLike {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** The driver connection under a Drizzle handle: the pool, the transaction's client, or PGlite. */
function clientOf(db: DbOrTx): PgLike | PgliteLike {
  return (db as unknown as { _: { session: { client: PgLike | PgliteLike } } })._.session.client;
}

/** Runs `st` on `db` (or in the transaction `db` is) and answers its rows. */
export async function run<R>(db: DbOrTx, st: Statement, values: readonly unknown[]): Promise<R[]> {
  const client = clientOf(db);
  const result =
    client instanceof pg.Pool || client instanceof pg.Client
      ? await client.query({ name: st.name, text: st.text, values: values as unknown[] })
      : await (client as PgliteLike).query(st.text, values as unknown[]);
  return result.rows as R[];
}

/** The first row, if any. */
export async function runOne<R>(
  db: DbOrTx,
  st: Statement,
  values: readonly unknown[],
): Promise<R | undefined> {
  return (await run<R>(db, st, values))[0];
}

/**
 * A part of a statement: SQL text numbering its own parameters from `$1`, and their values.
 * `compose` joins parts into one statement (one round trip, one implicit transaction when no
 * transaction is open), renumbering each part's parameters after the previous ones'.
 */
export interface Part {
  readonly text: string;
  readonly values: readonly unknown[];
}

export const part = (text: string, values: readonly unknown[] = []): Part => ({ text, values });

const composed = new Map<string, Statement>();

/**
 * `with <alias> as (<part>), ... <final>`: data-modifying parts run whether or not the final part
 * reads them, all on one snapshot (none sees another's rows; constraints are checked at the end of
 * the statement, so a row may refer to one inserted beside it). `name` prefixes the prepared
 * statement's name; each distinct text gets its own.
 */
export function compose(
  name: string,
  ctes: readonly (readonly [alias: string, part: Part])[],
  final: Part,
): { statement: Statement; values: unknown[] } {
  const values: unknown[] = [];
  const renumber = (p: Part) => {
    const offset = values.length;
    values.push(...p.values);
    return offset === 0 ? p.text : p.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  };
  const text =
    (ctes.length ? `with ${ctes.map(([alias, p]) => `${alias} as (${renumber(p)})`).join(', ')} ` : '') +
    renumber(final);
  let st = composed.get(text);
  if (!st) composed.set(text, (st = statement(`${name}_${composed.size}`, text)));
  return { statement: st, values };
}

/** A value as a statement parameter of its column: JSON columns take their text (cast `::jsonb`). */
function param(column: Column, value: unknown): unknown {
  return column.columnType === 'PgJsonb' && value !== null ? JSON.stringify(value) : value;
}
/** `$n` typed as its column, so it also types where PostgreSQL cannot infer it (`insert ... select $1`). */
const placeholder = (column: Column, n: number) => `$${n}::${column.getSQLType()}`;

/** The row's keys (those not undefined) as the table's columns, and their parameter values. */
function columnsFor(table: PgTable, row: Record<string, unknown>) {
  const all = getTableColumns(table);
  const keys = Object.keys(row).filter((k) => row[k] !== undefined);
  const cols = keys.map((k) => {
    const column = all[k];
    if (!column) throw new Error(`${getTableName(table)} has no column ${k}`);
    return column;
  });
  return { cols, values: keys.map((k, i) => param(cols[i]!, row[k])) };
}

/**
 * `insert into <table> (<the row's columns>) values (...) <tail>`, the row keyed as in the schema;
 * with `guard`, `select ... where <guard>` instead, so the row is written only where it holds.
 */
export function insertPart(table: PgTable, row: Record<string, unknown>, tail = '', guard?: string): Part {
  const { cols, values } = columnsFor(table, row);
  const params = cols.map((c, i) => placeholder(c, i + 1)).join(', ');
  return part(
    `insert into "${getTableName(table)}" (${cols.map((c) => `"${c.name}"`).join(', ')}) ${
      guard ? `select ${params} where ${guard}` : `values (${params})`
    } ${tail}`,
    values,
  );
}

/** `"col" = $n, ...` for the row's keys, numbering from `$<first>`, for an UPDATE's SET. */
export function assignments(table: PgTable, row: Record<string, unknown>, first: number): Part {
  const { cols, values } = columnsFor(table, row);
  return part(cols.map((c, i) => `"${c.name}" = ${placeholder(c, first + i)}`).join(', '), values);
}

const selections = new WeakMap<PgTable, string>();
/** The table's columns as a select list that answers rows keyed as in the schema (`"dsp_order_id" as "dspOrderId"`). */
export function columnsOf(table: PgTable): string {
  let list = selections.get(table);
  if (!list) {
    list = Object.entries(getTableColumns(table))
      .map(([key, c]) => `"${c.name}" as "${key}"`)
      .join(', ');
    selections.set(table, list);
  }
  return list;
}
