import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HostedMessage } from '@stream/contracts/envelopes';

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

/** Keeps each request's body as sent (a reference, not a copy) for `ignoredFields`. */
export function keepSentBodies(scope: FastifyInstance): void {
  // A callback hook: an async one costs a promise per request on the hot PriceOrder path.
  scope.addHook('preValidation', (req, _reply, done) => {
    req.sentBody = req.body;
    done();
  });
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

/** One WARNING per field of the request body the contract does not have (and so did not use). */
export function ignoredFields(req: FastifyRequest, what: string, loose?: Loose): HostedMessage[] {
  return ignoredPaths(req.sentBody, req.body, 'body', loose).map((path) => {
    const name = path.slice(path.lastIndexOf('.') + 1);
    const meant = MEANT[name];
    return {
      id: path,
      message: `${name} is not a field of ${what}; it was ignored.${meant ? ` Did you mean ${meant}?` : ''}`,
      messageType: 'WARNING',
    };
  });
}
