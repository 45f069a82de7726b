import { asc, desc, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { ApiError } from './errors.ts';

/*
 * Cursor pagination of every Partner API list (the query and answer fields are the contracts'
 * `apis/partner/pagination.ts`). A page is a keyset window: the items whose sort key comes after
 * the key of the previous page's last item, never an offset, so items added or removed during a
 * walk make it skip or repeat none. The cursor is that key, tagged with the list's name and
 * base64url-encoded: opaque to partners, free to change, and a cursor of one list is refused by
 * another instead of silently positioning it.
 */

/** A part of a sort key: an instant as `creationOrder` selects it (microseconds, UTC), or any text. */
type KeyPart = 'instant' | 'text';

/** How a list is sorted: its name (carried in its cursors) and its sort key, unique per item. */
export interface ListOrder {
  name: string;
  parts: readonly KeyPart[];
  direction: 'asc' | 'desc';
}

/** The query of a paginated list, as the contracts' `pageQuery` parses it (no `limit`: every item). */
export interface PageQuery {
  limit?: number | undefined;
  starting_after?: string | undefined;
}

/** One page to read: at most `limit` items (none: all) whose key comes after `after` (none: from the start). */
export interface PageWindow {
  order: ListOrder;
  limit: number | undefined;
  after: readonly string[] | undefined;
}

/** A page as the answers carry it, beside the list's own array field. */
export interface Page<T> {
  items: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const CURSOR_MAX_LENGTH = 4096;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function invalidCursor(why: string): ApiError {
  return new ApiError(
    'invalid_cursor',
    `starting_after ${why}: pass the next_cursor of the previous page of this list as it came, or leave starting_after out for the first page.`,
    [{ path: 'querystring.starting_after', message: 'must be a next_cursor of this list' }],
  );
}

function cursorOf(order: ListOrder, key: readonly string[]): string {
  return Buffer.from(JSON.stringify([order.name, ...key])).toString('base64url');
}

/** No lone UTF-16 surrogate (a JSON `\\ud800` escape makes one; PostgreSQL text cannot hold it). */
const wellFormed = (s: string): boolean => !/\p{Cs}/u.test(s);

/** Every key part reaches SQL as a parameter: what the database would refuse is refused here (400, not 500). */
function validPart(kind: KeyPart, part: unknown): part is string {
  if (typeof part !== 'string' || part.includes('\u0000') || !wellFormed(part)) return false;
  if (kind === 'text') return true;
  if (!INSTANT.test(part)) return false;
  const ms = Date.parse(part.slice(0, 23) + 'Z');
  // A round trip rejects a date that does not exist (February 30), which PostgreSQL would refuse.
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 23) === part.slice(0, 23);
}

function decodeCursor(order: ListOrder, raw: string): string[] {
  if (raw === '') throw invalidCursor('is empty');
  if (raw.length > CURSOR_MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(raw)) throw invalidCursor('is not a cursor');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('is not a cursor');
  }
  if (!Array.isArray(decoded) || decoded[0] !== order.name)
    throw invalidCursor('is not a cursor of this list');
  const key = decoded.slice(1);
  if (key.length !== order.parts.length || !order.parts.every((kind, i) => validPart(kind, key[i])))
    throw invalidCursor('is not a cursor of this list');
  return key as string[];
}

/** The page a query asks for; 400 `invalid_cursor` for a `starting_after` this list did not answer. */
export function pageWindow(order: ListOrder, query: PageQuery): PageWindow {
  const after = query.starting_after === undefined ? undefined : decodeCursor(order, query.starting_after);
  return { order, limit: query.limit, after };
}

/** How many rows to read for a window: one more than it shows, to know whether more follow (none: all). */
export const rowsToRead = (window: PageWindow): number | undefined =>
  window.limit === undefined ? undefined : window.limit + 1;

/** A (Drizzle `$dynamic()`) select limited to `rowsToRead(window)`, or not at all for a window without a limit. */
export function limitToWindow<Q extends { limit(n: number): Q }>(query: Q, window: PageWindow): Q {
  const rows = rowsToRead(window);
  return rows === undefined ? query : query.limit(rows);
}

/**
 * The page of `rows`: the window's first `rowsToRead(window)` rows in its order (the extra
 * row, dropped, says whether more follow). `keyOf` gives a row's sort key.
 */
export function pageOf<T>(
  window: PageWindow,
  rows: readonly T[],
  keyOf: (row: T) => readonly string[],
): Page<T> {
  const hasMore = window.limit !== undefined && rows.length > window.limit;
  const items = hasMore ? rows.slice(0, window.limit) : [...rows];
  return {
    items,
    has_more: hasMore,
    next_cursor: hasMore ? cursorOf(window.order, keyOf(items[items.length - 1]!)) : null,
  };
}

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! !== b[i]!) return a[i]! < b[i]! ? -1 : 1;
  }
  return 0;
}

/** The page of a list held in memory (computed, or read from a partner): sorted by `keyOf`, then windowed. */
export function pageOfAll<T>(
  window: PageWindow,
  all: readonly T[],
  keyOf: (item: T) => readonly string[],
): Page<T> {
  const sign = window.order.direction === 'asc' ? 1 : -1;
  const { after } = window;
  const sorted = all
    .map((item) => ({ item, key: keyOf(item) }))
    .sort((x, y) => sign * compareKeys(x.key, y.key));
  const rest = after ? sorted.filter((x) => sign * compareKeys(x.key, after) > 0) : sorted;
  const page = pageOf(window, rest.slice(0, rowsToRead(window)), (x) => x.key);
  return { ...page, items: page.items.map((x) => x.item) };
}

/**
 * A table list sorted by creation, then id (ids break ties; neither ever changes). Select `instant`
 * beside each row, the creation instant to the microsecond as text (a JS Date keeps milliseconds,
 * and rows created within one millisecond must not be skipped); a row's key is `[instant, id]`.
 */
export function creationOrder(
  name: string,
  createdAt: AnyColumn,
  id: AnyColumn,
  direction: 'asc' | 'desc' = 'asc',
) {
  const order: ListOrder = { name, parts: ['instant', 'text'], direction };
  const after = (at: unknown, lastId: unknown): SQL =>
    sql`(${createdAt}, ${id}) ${sql.raw(direction === 'asc' ? '>' : '<')} (${at}::timestamptz, ${lastId})`;
  return {
    order,
    instant: sql<string>`to_char(${createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    orderBy: direction === 'asc' ? [asc(createdAt), asc(id)] : [desc(createdAt), desc(id)],
    /** The condition of the window's rows (none for a first page). */
    where: (window: PageWindow): SQL | undefined =>
      window.after ? after(window.after[0], window.after[1]) : undefined,
    /**
     * The same condition for a prepared statement, over the placeholders `afterAt` and `afterId`
     * (`placeholders(window)` gives their values; both null for a first page).
     */
    wherePrepared: (): SQL =>
      sql`(${sql.placeholder('afterAt')}::timestamptz is null or ${after(sql.placeholder('afterAt'), sql.placeholder('afterId'))})`,
    placeholders: (window: PageWindow) => ({
      afterAt: window.after?.[0] ?? null,
      afterId: window.after?.[1] ?? null,
      // null: `limit null` is no limit in PostgreSQL.
      limit: rowsToRead(window) ?? null,
    }),
  };
}
