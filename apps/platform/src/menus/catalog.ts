import {
  CATALOG_KINDS,
  PRICE_PLATFORMS,
  type CatalogHoliday,
  type CatalogKind,
  type CatalogObjects,
  type CatalogSchedule,
} from '@stream/contracts/apis/become-a-pos/catalog';
import { isHttpUrl } from '@stream/contracts/common';
import { fieldPath } from '@stream/contracts/server/field-path';
import { unstorableTextProblem } from '@stream/contracts/server/input';
import { withoutNulls } from '../shared/without-nulls.ts';
import { asClause } from '@stream/contracts/issue-sentences';

/**
 * A POS catalog as received -> the catalog the menus are built from, as a pure function (spec
 * section 5): each object checked on its own against its kind's contract schema, defaults applied,
 * and every problem reported with the object at fault, so a partner can fix it and the rest still
 * publishes. Errors drop the object; warnings drop only the part at fault (a duplicate, a bad range).
 */

export interface CatalogProblem {
  severity: 'error' | 'warning';
  kind: CatalogKind | 'catalog';
  id: string | null;
  field: string | null;
  message: string;
}

/** The objects of one kind by provider_id, in the order the POS listed them. */
export type CatalogOf<K extends CatalogKind> = Map<string, CatalogObjects[K]>;
export type Catalog = { [K in CatalogKind]: CatalogOf<K> };

/** The catalog as stored (JSON): each kind's objects in order. */
export type StoredCatalog = { [K in CatalogKind]: CatalogObjects[K][] };

export const KINDS = Object.keys(CATALOG_KINDS) as CatalogKind[];
const CURRENCY = /^[A-Z]{3}$/;
const RANGE = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-4]):([0-5]\d)$/;
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether `HH:mm-HH:mm` is a valid range: end after start (`24:00` allowed as an end), or, with
 * `overnight` (menu schedules), before it: `22:00-02:00` closes at 02:00 the next day.
 */
export function validRange(range: string, overnight = false): boolean {
  const m = RANGE.exec(range);
  if (!m) return false;
  const [start, end] = [Number(m[1]) * 60 + Number(m[2]), Number(m[3]) * 60 + Number(m[4])];
  return end <= 24 * 60 && (end > start || (overnight && end < start));
}

/**
 * A range as the menu file writes it: an hour of one digit (`7:15-14:30`, as the public docs write
 * holiday hours; the spec writes `HH:mm`) is read as `07:15`. Anything else is left as it came.
 */
export const canonicalRange = (range: string) =>
  range.replace(/(^|-)(\d):(?=\d\d(?:-|$))/g, (_, before: string, hour: string) => `${before}0${hour}:`);

/** Whether `MM-DD` is a day of some year. */
export function validDate(date: string): boolean {
  const m = /^(\d{2})-(\d{2})$/.exec(date);
  if (!m) return false;
  const [month, day] = [Number(m[1]), Number(m[2])];
  return month >= 1 && month <= 12 && day >= 1 && day <= MONTH_DAYS[month - 1]!;
}

/** Whether a holiday comes back every year: `recurring_yearly`, else unless it names `specific_years`. */
export const recursYearly = (h: CatalogHoliday) => h.recurring_yearly ?? !h.specific_years;

/**
 * The holiday among `holidays` that the night of `h` runs into (hours past midnight belong to the
 * next date): the next date's, held in the same years (a recurring one, or one naming each of `h`'s
 * years, the next ones after 31 December). Undefined if that date is no holiday: it keeps its regular hours.
 */
export function nextHoliday<H extends CatalogHoliday>(holidays: readonly H[], h: H): H | undefined {
  const years = recursYearly(h) ? [] : (h.specific_years ?? []);
  // The day after, in the holiday's (first) year; one that recurs: in a year without 29 February.
  const [month, day] = h.date.split('-').map(Number) as [number, number];
  const next = new Date(Date.UTC(years[0] ?? 2001, month - 1, day + 1));
  const date = `${String(next.getUTCMonth() + 1).padStart(2, '0')}-${String(next.getUTCDate()).padStart(2, '0')}`;
  const shift = date === '01-01' ? 1 : 0;
  return holidays.find(
    (n) =>
      n.date === date &&
      (recursYearly(n) || (years.length > 0 && years.every((y) => n.specific_years?.includes(y + shift)))),
  );
}

export function normalizeCatalog(raw: unknown): { catalog: Catalog; problems: CatalogProblem[] } {
  const problems: CatalogProblem[] = [];
  const catalog = Object.fromEntries(KINDS.map((k) => [k, new Map()])) as Catalog;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push({
      severity: 'error',
      kind: 'catalog',
      id: null,
      field: null,
      message: 'The catalog must be a JSON object keyed by kind (category, item_family, item, ...).',
    });
    return { catalog, problems };
  }
  const body = raw as Record<string, unknown>;
  for (const kind of KINDS) {
    const list = body[kind];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) {
      problems.push({
        severity: 'error',
        kind,
        id: null,
        field: kind,
        message: `"${kind}" must be an array.`,
      });
      continue;
    }
    for (let index = 0; index < list.length; index++)
      addObject(catalog, problems, kind, list[index] as unknown, index);
  }
  warnUnknownKinds(body, problems);
  settleReferences(catalog, problems);
  warnUncategorisedFamilies(catalog, problems);
  return { catalog, problems };
}

/**
 * What `normalizeCatalog` does about references to objects the catalog does not hold, each settled
 * with its problem. It changes no object (one it must change is replaced by a copy), so it can run on a
 * stored version as it is read (`catalogOf`); on one stored since it was part of normalising, it finds nothing.
 */
export function settleReferences(catalog: Catalog, problems: CatalogProblem[]) {
  leaveOutWhatNeedsTheMissing(catalog, problems);
  dropUnsellableFamilies(catalog, problems);
  dropMissingEntries(catalog, problems);
}

/** `object` in `map` replaced by a copy with `changes` (a stored catalog's objects are never changed). */
function replace<T extends { provider_id: string }>(map: Map<string, T>, object: T, changes: Partial<T>) {
  map.set(object.provider_id, { ...object, ...changes });
}

/**
 * References to objects the catalog does not hold (never sent, or left out for a problem of their
 * own), each settled with its problem here, so that one broken object never refuses a store's whole
 * menu (MENU_CATALOG_MISMATCH) and the rest publishes. Left out in turn (an error), as they cannot be
 * sold as the POS means them: a modifier whose nested group is missing, a group left with fewer
 * modifiers than its minimum, a family whose modifier group or tax is missing (its choices or its tax
 * would not be the POS's), an item no family holds (its family missing, or none named or listing it).
 * One left out can take others with it, so they are followed until none is.
 * A list naming a missing object only loses that entry (a warning): a group's modifiers, a family's
 * items here, the rest in `dropMissingEntries` once unsellable families are gone too.
 */
function leaveOutWhatNeedsTheMissing(catalog: Catalog, problems: CatalogProblem[]) {
  const groupsListing = new Map<string, string[]>();
  const modifiersNesting = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, key: string, value: string) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const g of catalog.modifier_group.values())
    for (const m of g.modifier_ids ?? []) add(groupsListing, m, g.provider_id);
  for (const m of catalog.modifier.values())
    for (const g of m.modifier_group_ids ?? []) add(modifiersNesting, g, m.provider_id);
  const gone: { kind: 'modifier' | 'modifier_group'; id: string }[] = [];
  const leaveOut = (kind: CatalogKind, id: string, field: string, message: string) => {
    if (!catalog[kind].delete(id)) return;
    problems.push({ severity: 'error', kind, id, field, message });
    if (kind === 'modifier' || kind === 'modifier_group') gone.push({ kind, id });
  };
  const checkGroup = (group: CatalogObjects['modifier_group']) => {
    const listed = group.modifier_ids ?? [];
    const held = listed.filter((id) => catalog.modifier.has(id));
    if (held.length === listed.length) return;
    const minimum = group.rules?.minimum_unique_modifiers_allowed ?? 0;
    if (held.length < minimum)
      return leaveOut(
        'modifier_group',
        group.provider_id,
        'modifier_ids',
        `It asks for at least ${minimum} of its modifiers and the catalog holds ${held.length} of them; the modifier_group is left out until you add modifiers or lower minimum_unique_modifiers_allowed.`,
      );
    for (const id of listed.filter((m) => !catalog.modifier.has(m)))
      problems.push(missingEntry('modifier_group', group.provider_id, 'modifier_ids', 'modifier', id));
    replace(catalog.modifier_group, group, { modifier_ids: held });
  };
  /** Leaves the object out when its `field` names a `kind` the catalog does not hold; true if it did. */
  const leftOutFor = (
    from: CatalogKind,
    id: string,
    field: string,
    ids: string[] | undefined,
    kind: CatalogKind,
  ) => {
    const missing = ids?.find((entry) => !catalog[kind].has(entry));
    if (missing !== undefined) leaveOut(from, id, field, needs(from, kind, missing));
    return missing !== undefined;
  };
  const checkModifier = (modifier: CatalogObjects['modifier']) =>
    leftOutFor(
      'modifier',
      modifier.provider_id,
      'modifier_group_ids',
      modifier.modifier_group_ids,
      'modifier_group',
    );
  for (const group of [...catalog.modifier_group.values()]) checkGroup(group);
  for (const modifier of [...catalog.modifier.values()]) checkModifier(modifier);
  for (let next = gone.pop(); next; next = gone.pop()) {
    if (next.kind === 'modifier')
      for (const id of groupsListing.get(next.id) ?? []) {
        const group = catalog.modifier_group.get(id);
        if (group) checkGroup(group);
      }
    else
      for (const id of modifiersNesting.get(next.id) ?? []) {
        const modifier = catalog.modifier.get(id);
        if (modifier) checkModifier(modifier);
      }
  }
  for (const family of [...catalog.item_family.values()]) {
    const leftOut = (field: 'modifier_group_ids' | 'tax_ids', kind: CatalogKind) =>
      leftOutFor('item_family', family.provider_id, field, family[field], kind);
    if (leftOut('modifier_group_ids', 'modifier_group')) continue;
    if (!family.is_tax_exempt && leftOut('tax_ids', 'tax')) continue;
    const items = family.item_ids?.filter((id) => {
      if (catalog.item.has(id)) return true;
      problems.push(missingEntry('item_family', family.provider_id, 'item_ids', 'item', id));
      return false;
    });
    if (items && items.length < family.item_ids!.length)
      replace(catalog.item_family, family, { item_ids: items });
  }
  // An item is sold only as a size of a family: one no family holds would be on no menu without a word.
  const listed = new Set([...catalog.item_family.values()].flatMap((f) => f.item_ids ?? []));
  for (const item of [...catalog.item.values()]) {
    if (listed.has(item.provider_id)) continue;
    if (item.item_family_id === undefined)
      leaveOut(
        'item',
        item.provider_id,
        'item_family_id',
        "No item family holds it, so no menu can show it: give it its item_family_id, or list it in a family's item_ids. The item is left out.",
      );
    else leftOutFor('item', item.provider_id, 'item_family_id', [item.item_family_id], 'item_family');
  }
}

/** A menu's categories, a category's families and a group's default modifiers: only the missing entries go. */
function dropMissingEntries(catalog: Catalog, problems: CatalogProblem[]) {
  const held = (kind: CatalogKind, from: CatalogKind, id: string, field: string) => (entry: string) => {
    if (catalog[kind].has(entry)) return true;
    problems.push(missingEntry(from, id, field, kind, entry));
    return false;
  };
  for (const menu of catalog.menu.values()) {
    const kept = menu.category_ids?.filter(held('category', 'menu', menu.provider_id, 'category_ids'));
    if (kept && kept.length < menu.category_ids!.length) replace(catalog.menu, menu, { category_ids: kept });
  }
  for (const category of catalog.category.values()) {
    const kept = category.item_family_ids?.filter(
      held('item_family', 'category', category.provider_id, 'item_family_ids'),
    );
    if (kept && kept.length < category.item_family_ids!.length)
      replace(catalog.category, category, { item_family_ids: kept });
  }
  for (const group of catalog.modifier_group.values()) {
    const { rules } = group;
    const defaults = rules?.default_modifier_quantities;
    if (!defaults) continue;
    const keep = held('modifier', 'modifier_group', group.provider_id, 'rules.default_modifier_quantities');
    const kept = defaults.filter((d) => keep(d.modifier_id));
    if (kept.length < defaults.length)
      replace(catalog.modifier_group, group, { rules: { ...rules, default_modifier_quantities: kept } });
  }
}

const notHeld = (kind: CatalogKind, id: string) =>
  `It names ${kind} ${id}, which the catalog does not hold (never sent, or left out for a problem of its own)`;
/** The error of an object left out for what it names. */
const needs = (kind: CatalogKind, missingKind: CatalogKind, missingId: string) =>
  `${notHeld(missingKind, missingId)}; the ${kind} is left out until you add it or remove the reference.`;
/** The warning of a list entry dropped. */
const missingEntry = (
  kind: CatalogKind,
  id: string,
  field: string,
  missingKind: CatalogKind,
  missingId: string,
): CatalogProblem => ({
  severity: 'warning',
  kind,
  id,
  field,
  message: `${notHeld(missingKind, missingId)}; only this entry is dropped: add it or remove the reference.`,
});

/** A family no category lists is on no menu: said, or the POS would only notice it missing at the DSP. */
function warnUncategorisedFamilies(catalog: Catalog, problems: CatalogProblem[]) {
  const listed = new Set([...catalog.category.values()].flatMap((c) => c.item_family_ids ?? []));
  for (const family of catalog.item_family.values()) {
    if (listed.has(family.provider_id)) continue;
    problems.push({
      severity: 'warning',
      kind: 'item_family',
      id: family.provider_id,
      field: null,
      message: 'No category lists it (item_family_ids), so no menu shows it; add it to a category.',
    });
  }
}

/**
 * A list under a key that is not a kind (`items`, `modifier_groups`): its objects would vanish from
 * every menu without a word, so it is a warning naming the kind meant. Other extra keys are fine.
 */
function warnUnknownKinds(body: Record<string, unknown>, problems: CatalogProblem[]) {
  for (const [key, value] of Object.entries(body)) {
    if (!Array.isArray(value) || (KINDS as string[]).includes(key)) continue;
    const meant = KINDS.find((k) => key.toLowerCase().replace(/s$/, '') === k);
    problems.push({
      severity: 'warning',
      kind: 'catalog',
      id: null,
      field: key,
      message: `"${key}" is not a kind and was ignored${meant ? `: did you mean "${meant}"? Kinds are singular` : ''}; the kinds are ${KINDS.join(', ')}.`,
    });
  }
}

/** The items of each family: those it lists, then those naming it, each once. */
export function itemsByFamily(catalog: Catalog): Map<string, string[]> {
  const byFamily = new Map<string, string[]>();
  for (const family of catalog.item_family.values())
    byFamily.set(family.provider_id, [...(family.item_ids ?? [])]);
  for (const item of catalog.item.values()) {
    const list = item.item_family_id ? byFamily.get(item.item_family_id) : undefined;
    if (list && !list.includes(item.provider_id)) list.push(item.provider_id);
  }
  return byFamily;
}

/** A family without a price needs at least one item (spec section 5): one it lists, or one naming it. */
function dropUnsellableFamilies(catalog: Catalog, problems: CatalogProblem[]) {
  const named = new Set<string | undefined>();
  for (const item of catalog.item.values()) named.add(item.item_family_id);
  for (const family of catalog.item_family.values()) {
    if (family.price_amount !== undefined || family.item_ids?.length || named.has(family.provider_id))
      continue;
    catalog.item_family.delete(family.provider_id);
    problems.push({
      severity: 'error',
      kind: 'item_family',
      id: family.provider_id,
      field: 'price_amount',
      message:
        'An item family without a price needs at least one item (its sizes); give it a price or items. It is left out.',
    });
  }
}

/**
 * A problem with one object, named by its provider_id if it has a usable one. (A plain function, not
 * a closure made for each object: under tsx every closure made is also named, a cost paid per object.)
 */
function problemOf(
  severity: CatalogProblem['severity'],
  kind: CatalogKind,
  raw: unknown,
  field: string | null,
  message: string,
): CatalogProblem {
  const rawId = (raw as { provider_id?: unknown } | null)?.provider_id;
  // A whole number is an id as the contract reads it (its decimal string), so the problem names it so.
  const id = typeof rawId === 'string' || Number.isSafeInteger(rawId) ? String(rawId as string | number) : '';
  return { severity, kind, id: id || null, field, message };
}

function addObject(
  catalog: Catalog,
  problems: CatalogProblem[],
  kind: CatalogKind,
  raw: unknown,
  index: number,
) {
  const cleaned = withoutUnsafeImages(
    problems,
    kind,
    withoutUnknownPlatforms(problems, kind, withoutNulls(raw)),
  );
  const parsed = CATALOG_KINDS[kind].safeParse(cleaned);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = fieldPath('', issue.path as (string | number)[]) || null;
      const message = `${field ?? `${kind}[${index}]`}: ${asClause(issue.message)}; the ${kind} is left out.`;
      problems.push(problemOf('error', kind, raw, field, message));
    }
    return;
  }
  const object = parsed.data as CatalogObjects[typeof kind];
  const unstorable = unstorableTextProblem(object, '');
  if (unstorable) {
    const message = `${unstorable.path}: ${asClause(unstorable.message)}; the ${kind} is left out.`;
    problems.push(problemOf('error', kind, raw, unstorable.path, message));
    return;
  }
  const map = catalog[kind] as Map<string, typeof object>;
  const refused = refusal(map, kind, object);
  if (refused) {
    problems.push(problemOf(refused.severity, kind, raw, refused.field, refused.message));
    return;
  }
  if (kind === 'menu') {
    const menu = object as CatalogObjects['menu'];
    const warn = (field: string, message: string) =>
      problems.push(problemOf('warning', kind, raw, field, message));
    menu.schedule = cleanSchedule(menu.schedule, warn);
    menu.holidays = cleanHolidays(menu.holidays, warn);
  }
  map.set(object.provider_id, object);
}

/**
 * A price override for a platform outside section 9's list is dropped with a warning: it could never
 * apply, and refusing the object for it would take the whole dish off every marketplace.
 */
function withoutUnknownPlatforms(problems: CatalogProblem[], kind: CatalogKind, raw: unknown): unknown {
  const overrides = (raw as { dsp_price_amount_overrides?: unknown } | null)?.dsp_price_amount_overrides;
  if (!Array.isArray(overrides)) return raw;
  const known = overrides.filter((o: unknown, i) => {
    const dsp = (o as { dsp?: unknown } | null)?.dsp;
    if (typeof dsp !== 'string' || (PRICE_PLATFORMS as readonly string[]).includes(dsp)) return true;
    problems.push(
      problemOf(
        'warning',
        kind,
        raw,
        `dsp_price_amount_overrides[${i}].dsp`,
        `"${dsp}" is not a delivery platform a price can be overridden for (${PRICE_PLATFORMS.join(', ')}); this override is dropped and the ${kind} keeps its other prices.`,
      ),
    );
    return false;
  });
  return known.length === overrides.length ? raw : { ...raw!, dsp_price_amount_overrides: known };
}

/**
 * Why an image URL cannot go into a menu file, or undefined when it can: every DSP receives it and
 * may show or fetch it, so only an absolute http(s) URL without a user name or password is kept
 * (`javascript:`, `data:` or `file:` would reach a marketplace's pages; credentials, every DSP).
 */
function imageUrlProblem(url: string): string | undefined {
  if (!isHttpUrl(url)) return 'is not an absolute http:// or https:// URL';
  const parsed = new URL(url);
  if (parsed.username || parsed.password)
    return 'carries a user name or password, which every DSP would receive';
  return undefined;
}

/** An image whose `provider_url` a DSP must not receive is dropped with a warning; the object stays. */
function withoutUnsafeImages(problems: CatalogProblem[], kind: CatalogKind, raw: unknown): unknown {
  const images = (raw as { images?: unknown } | null)?.images;
  if (!Array.isArray(images)) return raw;
  const safe = images.filter((image: unknown, i) => {
    const url = (image as { provider_url?: unknown } | null)?.provider_url;
    const problem = typeof url === 'string' ? imageUrlProblem(url) : undefined;
    if (!problem) return true; // a provider_url that is no string is the schema's to refuse
    problems.push(
      problemOf(
        'warning',
        kind,
        raw,
        `images[${i}].provider_url`,
        `The image URL ${problem}; this image is dropped and the ${kind} keeps its other fields.`,
      ),
    );
    return false;
  });
  return safe.length === images.length ? raw : { ...raw!, images: safe };
}

/** Why a valid object is still left out: a second one of its provider_id, or a price without its currency. */
function refusal(
  map: Map<string, unknown>,
  kind: CatalogKind,
  object: CatalogObjects[CatalogKind],
): Pick<CatalogProblem, 'severity' | 'field' | 'message'> | undefined {
  if (map.has(object.provider_id))
    return {
      severity: 'warning',
      field: 'provider_id',
      message: `A second ${kind} ${object.provider_id} is dropped (the first one listed is kept): provider_ids are unique per kind, so give each its own.`,
    };
  if ('price_amount' in object && object.price_amount !== undefined) {
    const currency = (object as { price_currency?: string }).price_currency;
    if (currency === undefined)
      return {
        severity: 'error',
        field: 'price_currency',
        message: 'A price needs its price_currency (upper-case ISO-4217, e.g. USD); the object is left out.',
      };
    if (!CURRENCY.test(currency))
      return {
        severity: 'error',
        field: 'price_currency',
        message: `price_currency must be upper-case ISO-4217 such as USD, not "${currency}"; the object is left out.`,
      };
  }
  return undefined;
}

function cleanSchedule(
  schedule: CatalogSchedule | undefined,
  warn: (field: string, message: string) => void,
) {
  if (!schedule) return schedule;
  return Object.fromEntries(
    Object.entries(schedule).map(([day, ranges]) => [
      day,
      (ranges ?? []).map(canonicalRange).filter((range, i) => {
        if (validRange(range, true)) return true;
        warn(
          `schedule.${day}[${i}]`,
          `"${range}" is not a 24-hour HH:mm-HH:mm range (such as 11:00-15:00, or 22:00-02:00 past midnight); it is dropped.`,
        );
        return false;
      }),
    ]),
  ) as CatalogSchedule;
}

/**
 * Holidays with a valid date and valid ranges. A range past midnight (`22:00-02:00`) is kept: the
 * menu file gives the part after midnight to the next date when that date is a holiday too (see
 * `nextHoliday`), else the holiday closes at midnight, with a warning saying how to keep it open.
 */
function cleanHolidays(
  holidays: CatalogHoliday[] | undefined,
  warn: (field: string, message: string) => void,
) {
  if (!holidays) return holidays;
  const dated = holidays.map((h, i) => {
    if (validDate(h.date)) return h;
    warn(`holidays[${i}].date`, `"${h.date}" is not a MM-DD date; the holiday is dropped.`);
    return undefined;
  });
  const kept = dated.filter((h) => h !== undefined);
  return dated.flatMap((h, i) => {
    if (!h) return [];
    const hours = h.hours?.map(canonicalRange).filter((range, j) => {
      const field = `holidays[${i}].hours[${j}]`;
      if (!validRange(range, true)) {
        warn(
          field,
          `"${range}" is not a 24-hour HH:mm-HH:mm range (22:00-02:00 past midnight); it is dropped.`,
        );
        return false;
      }
      if (!validRange(range) && !range.endsWith('-00:00') && !nextHoliday(kept, h))
        warn(
          field,
          `"${range}" runs past midnight into a date that is no holiday of this menu and keeps its regular hours, so the holiday closes at 24:00; to stay open past midnight, list the next date as a holiday with hours from 00:00.`,
        );
      return true;
    });
    return [{ ...h, ...(hours ? { hours } : {}) }];
  });
}

/** Unset `is_active` counts as active (spec section 5). */
export const isActive = (o: { is_active?: boolean | undefined }) => o.is_active !== false;

export function storeCatalog(catalog: Catalog): StoredCatalog {
  return Object.fromEntries(KINDS.map((k) => [k, [...catalog[k].values()]])) as StoredCatalog;
}

export function loadCatalog(stored: StoredCatalog): Catalog {
  return Object.fromEntries(
    KINDS.map((k) => [k, new Map((stored[k] ?? []).map((o) => [o.provider_id, o]))]),
  ) as Catalog;
}
