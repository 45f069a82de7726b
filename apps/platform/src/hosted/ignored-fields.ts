import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HostedMessage } from '@stream/contracts/envelopes';
import { MAX_DETAILS } from '@stream/contracts/errors';

/**
 * Fields a partner sent that the contract does not have. Zod drops them without a word, so a
 * misspelt field (`preparationNote` for the spec's `preperationNote`, `modifierPriceInfo` for
 * `modifierpriceInfo`) would be lost silently: each one is named in a WARNING instead.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** The body as parsed from JSON, before the contract checked (and stripped) it. */
    sentBody?: unknown;
  }
}

/**
 * Keeps each request's body as sent (a reference, not a copy) for `ignoredFields`, its field names
 * first read in any case (`asContract`).
 */
export function keepSentBodies(scope: FastifyInstance): void {
  // A callback hook: an async one costs a promise per request on the hot PriceOrder path.
  scope.addHook('preValidation', (req, _reply, done) => {
    const schema = req.routeOptions.schema?.body as ZodLike | undefined;
    if (schema) req.body = asContract(req.body, schema);
    req.sentBody = req.body;
    done();
  });
}

interface ZodDef {
  type: string;
  shape?: Record<string, ZodLike>;
  element?: ZodLike;
  innerType?: ZodLike;
  in?: ZodLike;
  valueType?: ZodLike;
  getter?: () => ZodLike;
  entries?: Record<string, unknown>;
}
interface ZodLike {
  _zod?: { def: ZodDef };
}

/** The schema under its wrappers (optional, default, nullable, a transform's input, lazy). */
function unwrapped(schema: ZodLike | undefined): ZodDef | undefined {
  let def = schema?._zod?.def;
  for (let i = 0; def && i < 16; i++) {
    const inner =
      def.innerType ?? (def.type === 'pipe' ? def.in : def.type === 'lazy' ? def.getter?.() : undefined);
    if (!inner) break;
    def = inner._zod?.def;
  }
  return def;
}

/** An object schema's field names by their lower case (none where two differ only in case). */
const namesByDef = new WeakMap<ZodDef, Map<string, string>>();
function namesOf(def: ZodDef, shape: Record<string, ZodLike>): Map<string, string> {
  let names = namesByDef.get(def);
  if (!names) {
    names = new Map();
    const twice = new Set<string>();
    for (const name of Object.keys(shape)) {
      const lower = name.toLowerCase();
      if (names.has(lower)) twice.add(lower);
      names.set(lower, name);
    }
    for (const lower of twice) names.delete(lower);
    namesByDef.set(def, names);
  }
  return names;
}

/** An enum's values by their lower case (none where two differ only in case). */
const valuesByDef = new WeakMap<ZodDef, Map<string, string>>();
function valuesOf(def: ZodDef): Map<string, string> {
  let values = valuesByDef.get(def);
  if (!values) {
    const strings = Object.values(def.entries ?? {}).filter((v): v is string => typeof v === 'string');
    values = new Map(strings.map((v) => [v.toLowerCase(), v]));
    if (values.size !== strings.length) values = new Map();
    valuesByDef.set(def, values);
  }
  return values;
}

/**
 * `value` with each field named in another case than the contract's (`OrderType`, `NoteText`,
 * `Data`) renamed to the contract's spelling, at every level the schema describes, as the ASP.NET
 * platform these APIs reproduce binds JSON names in any case. A field also sent in the contract's
 * spelling keeps that one (the other is ignored, with its WARNING); a record's keys (`extendedProperties`)
 * are data and stay as sent. A value of a closed list (an enum: `sale` for `SALE`, `left` for `Left`,
 * `doordash` for `DoorDash`) is read in any case too, as ASP.NET's enum converter reads it. The same
 * value back when nothing is renamed: copied only where it changes.
 */
export function asContract(value: unknown, schema: ZodLike | undefined, depth = 0): unknown {
  if (typeof value === 'string') {
    const def = unwrapped(schema);
    return def?.type === 'enum' ? (valuesOf(def).get(value.toLowerCase()) ?? value) : value;
  }
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  const def = unwrapped(schema);
  if (!def) return value;
  if (Array.isArray(value)) {
    if (def.type !== 'array') return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = asContract(value[i], def.element, depth + 1);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  const sent = value as Record<string, unknown>;
  if (def.type === 'record') {
    let out: Record<string, unknown> | undefined;
    for (const key in sent) {
      if (!Object.hasOwn(sent, key)) continue;
      const v = asContract(sent[key], def.valueType, depth + 1);
      if (v !== sent[key]) (out ??= { ...sent })[key] = v;
    }
    return out ?? value;
  }
  const shape = def.type === 'object' ? def.shape : undefined;
  if (!shape) return value;
  let out: Record<string, unknown> | undefined;
  for (const key in sent) {
    if (!Object.hasOwn(sent, key)) continue;
    let name = key;
    if (!Object.hasOwn(shape, key)) {
      const meant = namesOf(def, shape).get(key.toLowerCase());
      if (meant !== undefined && !Object.hasOwn(out ?? sent, meant)) name = meant;
    }
    const was = sent[key];
    const v = Object.hasOwn(shape, name) ? asContract(was, shape[name], depth + 1) : was;
    if (name === key && v === was) continue;
    out ??= { ...sent };
    if (name !== key) delete out[key];
    out[name] = v;
  }
  return out ?? value;
}

/** The spec's spellings a partner is likely to get "right": the field it means. */
const MEANT: Record<string, string> = {
  preparationNote: 'preperationNote',
  postalCode: 'postalcode',
  streetNumber: 'streetnumber',
  modifierPriceInfo: 'modifierpriceInfo',
  menuGroupRequirements: 'menuGroupRequirments',
  itemRequirements: 'itemRequirments',
  modifierRequirements: 'modifierRequirments',
  quantity: 'qty',
  note: 'noteText',
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A loose object of the contract: the names it accepts without using (ignored as documented). */
export interface Loose {
  path: string;
  names: ReadonlySet<string>;
}

/**
 * The paths of what `sent` has and `kept` (its checked form) lost, below `path`. On every hosted
 * order, so it allocates nothing until it finds something: a path is made only to descend or to report.
 */
export function ignoredPaths(
  sent: unknown,
  kept: unknown,
  path: string,
  loose?: Loose,
  found: string[] = [],
): string[] {
  if (Array.isArray(sent)) {
    if (!Array.isArray(kept)) return found;
    for (let i = 0; i < sent.length; i++) {
      const value: unknown = sent[i];
      if (value !== null && typeof value === 'object')
        ignoredPaths(value, kept[i], `${path}[${i}]`, loose, found);
    }
  } else if (isObject(sent) && isObject(kept)) {
    const names = loose?.path === path ? loose.names : undefined;
    for (const key in sent) {
      if (!Object.hasOwn(sent, key)) continue;
      const value = sent[key];
      // A null is "not given" (the body's nulls are dropped before it is checked): nothing was lost.
      if (value === null) continue;
      if (!Object.hasOwn(kept, key) || (names && !names.has(key))) found.push(`${path}.${key}`);
      else if (value !== null && typeof value === 'object')
        ignoredPaths(value, kept[key], `${path}.${key}`, loose, found);
    }
  }
  return found;
}

/**
 * One WARNING per field of the request body the contract does not have (and so did not use): at most
 * `MAX_DETAILS`, then one counting the rest, as errors list their fields.
 */
export function ignoredFields(req: FastifyRequest, what: string, loose?: Loose): HostedMessage[] {
  const paths = ignoredPaths(req.sentBody, req.body, 'body', loose);
  const listed = paths.slice(0, MAX_DETAILS).map((path): HostedMessage => {
    const name = path.slice(path.lastIndexOf('.') + 1);
    // Own properties only: a field named `constructor` means nothing of the contract's.
    const meant = Object.hasOwn(MEANT, name) ? MEANT[name] : undefined;
    return {
      id: path,
      message: `${name} is not a field of ${what}; it was ignored.${meant ? ` Did you mean ${meant}?` : ''}`,
      messageType: 'WARNING',
    };
  });
  const more = paths.length - listed.length;
  if (more > 0)
    listed.push({
      id: 'more_warnings',
      message: `${more} more field(s) of ${what} were ignored and are not listed.`,
      messageType: 'WARNING',
    });
  return listed;
}
