import { and, asc, eq, lt, sql, type SQL } from 'drizzle-orm';
import jsonPatch, { type Operation } from 'fast-json-patch';
import type { z } from 'zod';
import {
  MenuInput,
  type Menu,
  type OutOfStockItem,
  type ModifierCategory,
} from '@stream/contracts/apis/hr-menu/menu';
import type { JsonPatch } from '@stream/contracts/apis/hr-menu/index';
import type { HostedMessage } from '@stream/contracts/envelopes';
import type { ErrorDetail } from '@stream/contracts/errors';
import type { ServiceType } from '@stream/contracts/hosted';
import type { DbOrTx } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { hostedMenus } from '../../db/schema/index.ts';
import { ApiError } from '../../http/errors.ts';
import { ignoredPaths } from '../ignored-fields.ts';
import { checkMenu } from './check.ts';
import { fieldPath } from '@stream/contracts/server/field-path';

type MenuRow = typeof hostedMenus.$inferSelect;

/** A stored menu as the API shows it. */
export const menuOf = (row: Pick<MenuRow, 'id' | 'menu'>): Menu => ({ id: row.id, ...row.menu });

/** A `text[]` parameter (a JS array in `sql` would be a list of parameters). */
const textArray = (values: readonly string[]): SQL =>
  sql`ARRAY[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;

/** The store's menus, or those serving `serviceType` (a menu listing `None` serves every one). */
export async function listStoreMenus(
  db: DbOrTx,
  storeId: number,
  serviceType?: ServiceType,
): Promise<MenuRow[]> {
  return db
    .select()
    .from(hostedMenus)
    .where(
      and(
        eq(hostedMenus.storeId, storeId),
        serviceType ? sql`${hostedMenus.serviceTypes} && ${textArray([serviceType, 'None'])}` : undefined,
      ),
    )
    .orderBy(asc(hostedMenus.id));
}

/** The service types the store's menus list, each once (their names and menus are not read). */
export async function storeServiceTypes(db: DbOrTx, storeId: number): Promise<Set<string>> {
  const rows = await db
    .selectDistinct({ serviceTypes: hostedMenus.serviceTypes })
    .from(hostedMenus)
    .where(eq(hostedMenus.storeId, storeId));
  return new Set(rows.flatMap((r) => r.serviceTypes));
}

/**
 * A WARNING for each service type of `row` that orders are not priced against it for: another menu
 * lists it and was created first (`storeAndMenuForOrder` takes the first). `path`: where the menu's
 * `serviceTypes` are in the request.
 */
export async function shadowedServiceTypes(db: DbOrTx, row: MenuRow, path: string): Promise<HostedMessage[]> {
  if (row.serviceTypes.length === 0) return [];
  // Only the store's older menus that share a service type with this one, and only their names and types.
  const earlier = await db
    .select({ name: hostedMenus.name, serviceTypes: hostedMenus.serviceTypes })
    .from(hostedMenus)
    .where(
      and(
        eq(hostedMenus.storeId, row.storeId),
        lt(hostedMenus.id, row.id),
        sql`${hostedMenus.serviceTypes} && ${textArray(row.serviceTypes)}`,
      ),
    )
    .orderBy(asc(hostedMenus.id));
  return row.serviceTypes.flatMap((type, i) => {
    const first = earlier.find((m) => m.serviceTypes.includes(type));
    if (!first) return [];
    const message =
      type === 'None'
        ? `The default (None) menu is "${first.name}", created first; menu "${row.name}" is used as the default only by an order that names it in data.menuName.`
        : `${type} orders are priced against menu "${first.name}", which lists ${type} and was created first; menu "${row.name}" prices a ${type} order only when it names it in data.menuName.`;
    return [{ id: `${path}[${i}]`, message, messageType: 'WARNING' as const }];
  });
}

/**
 * 404 for a menu name the store does not have. Menu names are identifiers matched exactly, case
 * included (a store may have both "Main" and "main"), so one that differs only in case is named.
 */
async function noMenu(db: DbOrTx, storeId: number, name: string): Promise<ApiError> {
  const near = await db
    .select({ name: hostedMenus.name })
    .from(hostedMenus)
    .where(and(eq(hostedMenus.storeId, storeId), sql`lower(${hostedMenus.name}) = lower(${name})`))
    .orderBy(asc(hostedMenus.name));
  const hint = near.length
    ? `; menu names match exactly, case included: did you mean ${near.map((m) => `"${m.name}"`).join(' or ')}?`
    : '.';
  return new ApiError('not_found', `The store has no menu named "${name}"${hint}`);
}

export async function findStoreMenu(
  db: DbOrTx,
  storeId: number,
  name: string,
  forUpdate = false,
): Promise<MenuRow> {
  const query = db
    .select()
    .from(hostedMenus)
    .where(and(eq(hostedMenus.storeId, storeId), eq(hostedMenus.name, name)));
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw await noMenu(db, storeId, name);
  return row;
}

/** 422 `menu_invalid` unless the menu keeps every rule across its fields. */
function requireValid(menu: MenuInput, prefix: string): void {
  const problems = checkMenu(menu, prefix);
  if (problems.length > 0) {
    throw new ApiError(
      'menu_invalid',
      `The menu breaks ${problems.length} rule(s); the first: ${problems[0]!.path}: ${problems[0]!.message}`,
      problems,
    );
  }
}

const exists = (name: string) =>
  new ApiError(
    'menu_exists',
    `The store already has a menu named "${name}"; change it with PATCH /Menus/${encodeURIComponent(name)}.`,
  );

export async function createStoreMenu(db: DbOrTx, storeId: number, menu: MenuInput): Promise<MenuRow> {
  requireValid(menu, 'body.data.');
  try {
    const [row] = await db
      .insert(hostedMenus)
      .values({ storeId, name: menu.displayName, serviceTypes: menu.serviceTypes, menu })
      .returning();
    return row!;
  } catch (err) {
    if (isUniqueViolation(err)) throw exists(menu.displayName);
    throw err;
  }
}

/** Writes a whole menu in (the CLI's import): created, or replaced when the store has one of that name. */
export async function upsertStoreMenu(db: DbOrTx, storeId: number, menu: MenuInput): Promise<void> {
  requireValid(menu, '');
  await db
    .insert(hostedMenus)
    .values({ storeId, name: menu.displayName, serviceTypes: menu.serviceTypes, menu })
    .onConflictDoUpdate({
      target: [hostedMenus.storeId, hostedMenus.name],
      set: { serviceTypes: menu.serviceTypes, menu, updatedAt: sql`now()` },
    });
}

/** A path the patch may not touch: an `id` (orders, discounts and prices refer to them). */
const touchesId = (pointer: string | undefined) => pointer !== undefined && /(^|\/)id$/.test(pointer);

/**
 * Applies an RFC 6902 patch to the menu as the API shows it, all or nothing: the result must parse
 * as a menu and keep every rule, or nothing is stored. The row is locked for the read-modify-write,
 * so two concurrent patches apply one after the other.
 */
export async function patchStoreMenu(
  db: DbOrTx,
  storeId: number,
  name: string,
  patch: z.output<typeof JsonPatch>,
  /** The most bytes the patched menu may hold: what a menu sent whole (`POST /Menus`) may. */
  maxBytes: number,
): Promise<MenuRow> {
  const forbidden = patch.findIndex(
    (op) => (op.op !== 'test' && touchesId(op.path)) || (op.op === 'move' && touchesId(op.from)),
  );
  if (forbidden >= 0) {
    throw new ApiError(
      'patch_not_allowed',
      `Operation ${forbidden} (${patch[forbidden]!.op} ${patch[forbidden]!.path}) changes an id; ids cannot be patched (orders and discounts refer to them). Add a new object instead.`,
      [{ path: `body[${forbidden}].path`, message: 'ids cannot be patched' }],
    );
  }
  return db.transaction(async (tx) => {
    const row = await findStoreMenu(tx, storeId, name, true);
    const { doc: patched, written } = applyPatch(menuOf(row), patch, maxBytes);
    const parsed = MenuInput.safeParse(patched);
    if (!parsed.success) {
      const details: ErrorDetail[] = parsed.error.issues.map((i) => ({
        path: fieldPath('', i.path as (string | number)[]) || '(menu)',
        message: i.message,
      }));
      throw new ApiError(
        'menu_invalid',
        `The patched menu is not valid: ${details[0]!.path}: ${details[0]!.message}`,
        details,
      );
    }
    const lost = patch.findIndex((op) => writesTo(op) && !holds(parsed.data, op.path));
    if (lost >= 0) {
      throw new ApiError(
        'invalid_patch',
        `Operation ${lost} (${patch[lost]!.op} ${patch[lost]!.path}) writes a field the menu does not have; nothing was changed.`,
        [{ path: `body[${lost}].path`, message: 'not a field of the menu' }],
      );
    }
    refuseUnknownFields(patched, parsed.data, patch, written);
    requireValid(parsed.data, '');
    try {
      const [updated] = await tx
        .update(hostedMenus)
        .set({
          name: parsed.data.displayName,
          serviceTypes: parsed.data.serviceTypes,
          menu: parsed.data,
          updatedAt: sql`now()`,
        })
        .where(eq(hostedMenus.id, row.id))
        .returning();
      return updated!;
    } catch (err) {
      if (isUniqueViolation(err)) throw exists(parsed.data.displayName);
      throw err;
    }
  });
}

type PatchOp = z.output<typeof JsonPatch>[number];

/**
 * Applies the patch to a copy of the menu, operation by operation, so a refusal names its operation.
 * Only a `copy` makes the menu grow by more than the patch holds (copying `/groups` into itself
 * doubles it, 20 such copies are a million menus), so the bytes copies add are counted against
 * `maxBytes` before each is applied.
 */
function applyPatch(
  menu: Menu,
  patch: z.output<typeof JsonPatch>,
  maxBytes: number,
): { doc: unknown; written: (string | undefined)[] } {
  let doc: unknown = structuredClone(menu);
  let bytes: number | undefined; // the menu's, read at the first copy
  // Where each operation left a value, an append's `-` as the index it took (`refuseUnknownFields` reads it).
  const written: (string | undefined)[] = [];
  patch.forEach((op, index) => {
    if (op.op === 'copy' && op.from !== undefined) {
      bytes = (bytes ?? JSON.stringify(menu).length) + JSON.stringify(valueAt(doc, op.from) ?? null).length;
      if (bytes > maxBytes) {
        throw refusal(
          index,
          op,
          'from',
          `copying ${op.from} would make the menu larger than ${maxBytes} bytes`,
        );
      }
    }
    // RFC 6902 4.4 (the library does not check it, and half-applies such a move).
    if (op.op === 'move' && op.path.startsWith(`${op.from}/`)) {
      throw refusal(index, op, 'path', `it moves ${op.from || 'the menu'} into itself`);
    }
    keepsItsId(doc, op, index);
    if (['add', 'replace', 'copy', 'move'].includes(op.op)) {
      const parent = op.path.slice(0, op.path.lastIndexOf('/'));
      const list = op.path.endsWith('/-') ? valueAt(doc, parent) : undefined;
      written[index] = Array.isArray(list) ? `${parent}/${list.length}` : op.path;
    }
    try {
      doc = jsonPatch.applyOperation(doc, op as Operation, true, true, true, index).newDocument;
    } catch (err) {
      if (err instanceof jsonPatch.JsonPatchError && err.name === 'TEST_OPERATION_FAILED') {
        throw new ApiError(
          'patch_test_failed',
          `Operation ${index} (test ${op.path}) did not match the menu; nothing was changed.`,
        );
      }
      const [field, why] = patchProblem(err, op);
      throw refusal(index, op, field, why);
    }
  });
  return { doc, written };
}

/**
 * 400 `invalid_patch` for each field an `add` or `replace` value (or whatever the patch wrote) holds that
 * the menu has not: `MenuInput` strips it, so it would be lost without a word, where `POST /Menus` at
 * least warns of it. The patched menu as the operations left it is compared with what its schema kept
 * (`ignoredPaths`, as the WARNINGs of POST /Menus are found); the stored menu holds only what the schema
 * kept, so all such a field can come from is the patch (its `id`, which the API shows, aside). A field is
 * named in the value of the operation that wrote it, `body[0].value.modifiers[0].descripton`, or by the
 * path of the copy or move that put it where it is; else (a later insert shifted it) by its place in the menu.
 */
function refuseUnknownFields(
  patched: unknown,
  kept: MenuInput,
  patch: z.output<typeof JsonPatch>,
  written: readonly (string | undefined)[],
): void {
  const lost = ignoredPaths(patched, kept, '').filter((p) => p !== '.id');
  if (lost.length === 0) return;
  // Each operation's place in the form `ignoredPaths` names fields in (`.groups[0].items[3]`).
  const places = written.map((pointer) => (pointer === undefined ? undefined : dotted(patched, pointer)));
  const details = lost.map((path) => {
    const name = path.slice(path.lastIndexOf('.') + 1);
    const message = `${name} is not a field of the menu (a patch's field names are matched exactly, case included)`;
    for (let i = patch.length - 1; i >= 0; i--) {
      const at = places[i];
      if (at === undefined || !path.startsWith(at) || !/^([.[]|$)/.test(path.slice(at.length))) continue;
      const field = patch[i]!.op === 'add' || patch[i]!.op === 'replace' ? 'value' : 'path';
      return {
        path: `body[${i}].${field}${field === 'value' ? path.slice(at.length) : ''}`,
        message,
        index: i,
      };
    }
    return { path: path.slice(1), message, index: undefined };
  });
  const first = details[0]!;
  const op = first.index === undefined ? undefined : patch[first.index]!;
  throw new ApiError(
    'invalid_patch',
    `${op ? `Operation ${first.index} (${op.op} ${op.path}) writes` : 'The patch writes'} ${lost.length === 1 ? 'a field' : `${lost.length} fields`} the menu does not have, the first ${lost[0]!.slice(1)}; a patch is read exactly as sent, so nothing was changed.`,
    details.map(({ path, message }) => ({ path, message })),
  );
}

/** A JSON pointer into `doc` as `ignoredPaths` names places: `/groups/0/items/-` read `.groups[0].items[3]`. */
function dotted(doc: unknown, pointer: string): string {
  let at: unknown = doc;
  let out = '';
  for (const raw of pointer === '' ? [] : pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    out += Array.isArray(at) ? `[${key}]` : `.${key}`;
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  }
  return out;
}

/** The value at `pointer` (own fields only), or undefined when the document has nothing there. */
function valueAt(doc: unknown, pointer: string): unknown {
  let at: unknown = doc;
  for (const raw of pointer === '' ? [] : pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

const idOf = (value: unknown): unknown =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, 'id')
    ? (value as { id: unknown }).id
    : undefined;

/**
 * 405 `patch_not_allowed` when the operation writes over an object with an id (the menu, a group,
 * an item, ...) with a value of another id, or none: an object keeps its id for life, so `replace
 * /groups/0/items/1` must carry the item's own id. An `add`, `move` or `copy` into a list inserts
 * (nothing is written over), and a list written whole is the objects it lists: those whose ids it
 * keeps, and new ones. So adding and removing objects stay as they were; only a write in place is
 * held to the id (the `/id` fields themselves are refused before the menu is read).
 */
function keepsItsId(doc: unknown, op: PatchOp, index: number): void {
  if (op.op === 'test' || op.op === 'remove') return;
  const cut = op.path.lastIndexOf('/');
  // Into a list, add, move and copy insert; replace writes over the element.
  if (op.op !== 'replace' && cut >= 0 && Array.isArray(valueAt(doc, op.path.slice(0, cut)))) return;
  const old = idOf(valueAt(doc, op.path));
  if (old === undefined) return;
  // A value or from left out (or naming nothing) is the library's refusal, 400 invalid_patch.
  const written =
    op.op === 'add' || op.op === 'replace'
      ? op.value
      : op.from === undefined
        ? undefined
        : valueAt(doc, op.from);
  if (written === undefined) return;
  const now = idOf(written);
  if (now === old) return;
  const why = `it writes ${now === undefined ? 'an object without an id' : `id ${JSON.stringify(now)}`} over the object of id ${JSON.stringify(old)}, and an object keeps its id for life`;
  throw new ApiError(
    'patch_not_allowed',
    `Operation ${index} (${op.op} ${op.path}) changes an id: ${why}. Keep its id to change the object, or remove it and add the new object instead; nothing was changed.`,
    [{ path: `body[${index}].${op.op === 'replace' || op.op === 'add' ? 'value' : 'from'}`, message: why }],
  );
}

const refusal = (index: number, op: PatchOp, field: 'path' | 'from', why: string) =>
  new ApiError(
    'invalid_patch',
    `Operation ${index} (${op.op} ${op.path}) cannot be applied: ${why}; nothing was changed.`,
    [{ path: `body[${index}].${field}`, message: why }],
  );

/**
 * What is wrong with an operation the library refused, in the API's words (its own are about its
 * options and internals). Everything it throws is about the patch: a JsonPatchError, or a plain
 * Error for a banned pointer (`/__proto__/...`).
 */
function patchProblem(err: unknown, op: PatchOp): ['path' | 'from', string] {
  const { path } = op;
  const parent = path.slice(0, path.lastIndexOf('/'));
  const last = path.slice(path.lastIndexOf('/') + 1);
  const from = 'from' in op ? op.from : undefined;
  const name = err instanceof jsonPatch.JsonPatchError ? err.name : undefined;
  if (!name && /__proto__|prototype/.test((err as Error)?.message ?? '')) {
    const field =
      from !== undefined && /\/(__proto__|constructor|prototype)(\/|$)/.test(from) ? 'from' : 'path';
    return [
      field,
      `${field === 'from' ? from : path} names __proto__, constructor or prototype, which no menu field is`,
    ];
  }
  switch (name) {
    case 'OPERATION_FROM_UNRESOLVABLE':
      return ['from', `the menu has nothing at ${from} (its from)`];
    case 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX':
      return ['path', `${parent} is a list: its index must be a whole number, or - to append`];
    case 'OPERATION_VALUE_OUT_OF_BOUNDS':
      return ['path', `${parent} has fewer than ${last} items: use ${parent}/- to append`];
    case 'OPERATION_PATH_CANNOT_ADD':
      return ['path', `the menu has no object or list at ${parent} to add to`];
    case 'OPERATION_PATH_UNRESOLVABLE':
      return [
        'path',
        op.op === 'add'
          ? `the menu has no object or list at ${parent} to add to`
          : `the menu has nothing at ${path}`,
      ];
    default:
      return ['path', `the menu has no place for it at ${path}`];
  }
}

/** An operation that leaves a value at its `path` (an append, `/-`, names no place to look). */
const writesTo = (op: { op: string; path: string }) =>
  ['add', 'replace', 'copy', 'move'].includes(op.op) && !op.path.endsWith('/-');

/** Whether the menu, as its schema keeps it, holds something at `pointer`. */
function holds(menu: unknown, pointer: string): boolean {
  let at: unknown = menu;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return true;
}

/** Items and modifiers with `isAvailable: false`, by stock item id, each once. */
export function outOfStockOf(menus: readonly Pick<MenuRow, 'menu'>[]): OutOfStockItem[] {
  const found = new Map<string, OutOfStockItem>();
  const note = (
    o: { id: string; stockItemId?: string | undefined; isAvailable: boolean },
    stockItemType: OutOfStockItem['stockItemType'],
  ) => {
    const stockItemId = o.stockItemId ?? o.id;
    if (!o.isAvailable && !found.has(`${stockItemType}:${stockItemId}`)) {
      found.set(`${stockItemType}:${stockItemId}`, { stockItemId, stockItemType });
    }
  };
  const walk = (categories: ModifierCategory[]) => {
    for (const c of categories)
      for (const m of c.modifiers) {
        note(m, 'modifier');
        walk(m.modifiers);
      }
  };
  for (const { menu } of menus)
    for (const g of menu.groups)
      for (const item of g.items) {
        note(item, 'item');
        walk(item.modifiers);
      }
  return [...found.values()];
}
