import { z } from 'zod';

export const PartnerKind = z
  .enum(['pos', 'dsp', 'events', 'white_label'])
  .meta({ id: 'PartnerKind', description: 'The four kinds of partner the platform connects.' });
export type PartnerKind = z.infer<typeof PartnerKind>;

/** Scopes a Partner API token can carry (platform.md section 6). */
export const Scope = z
  .enum(['user', 'onboarding', 'legacy_onboarding', 'sso', 'billing', 'menu', 'orders', 'stores'])
  .meta({
    id: 'Scope',
    description:
      'A Partner API permission. `menu`, `orders`, `stores`: the hosted Menu, Order and Store APIs, for the companies granted to the partner.',
  });
export type Scope = z.infer<typeof Scope>;
export const ALL_SCOPES = Scope.options;

/**
 * The hosted restaurant APIs' scopes. Companies are granted to a partner, not to one of its
 * organisations, so only the partner's own API client carries them (`companies grant` adds them).
 */
export const HOSTED_SCOPES = ['menu', 'orders', 'stores'] as const satisfies readonly Scope[];
export const isHostedScope = (scope: string): boolean => (HOSTED_SCOPES as readonly string[]).includes(scope);

/**
 * The Partner API scopes of white-label work (platform.md section 1: organisations, onboarding,
 * SSO, billing). A new partner's root client gets them only when the partner is `white_label`; a
 * POS, DSP or event provider gets none unless the operator names them (`partners create --scopes`):
 * its calls on the Partner API (order reads, menu publications, certification) need no scope.
 */
export const WHITE_LABEL_SCOPES = [
  'user',
  'onboarding',
  'legacy_onboarding',
  'sso',
  'billing',
] as const satisfies readonly Scope[];
export const isWhiteLabelScope = (scope: string): boolean =>
  (WHITE_LABEL_SCOPES as readonly string[]).includes(scope);

/** The scopes a new partner's root client gets when the operator names none: least privilege by kind. */
export const defaultRootScopes = (kind: PartnerKind): Scope[] =>
  kind === 'white_label' ? [...WHITE_LABEL_SCOPES] : [];

/** What a partner token (limited to one organisation) may carry: platform.md section 3's list. */
export const PartnerTokenScope = z
  .enum(
    ALL_SCOPES.filter((s) => !isHostedScope(s)) as [
      'user',
      'onboarding',
      'legacy_onboarding',
      'sso',
      'billing',
    ],
  )
  .meta({
    id: 'PartnerTokenScope',
    description:
      'A scope a partner token can carry: the hosted APIs (`menu`, `orders`, `stores`) are for your own client.',
  });

/** Ids the platform mints: a prefix naming the kind of object, then 24 base32 characters. */
export const ObjectId = z.string().min(1).max(64);

/**
 * A partner's own id of a thing it names to the platform (a location, a store, an order, a merchant
 * account). The specs give these ids no type and many systems number theirs: a whole number is taken as
 * its decimal string, so `1042` and `"1042"` name the same thing and the platform stores and sends
 * strings.
 */
export const partnerId = (description: string, max = 200) =>
  z
    .string()
    .min(1)
    .max(max)
    // Only a number is transformed: a transform of the whole union costs a string id (by far the
    // most common, and a 5,000-item catalog holds tens of thousands) twice the time and heap.
    .or(z.number().int().transform(String))
    .meta({ description: `${description} A string, or a whole number (kept as its decimal string).` });

export const Email = z.email().max(254);
/** E.164: a plus, then 8 to 15 digits, the first not zero. */
const E164 = /^\+[1-9]\d{7,14}$/;
export const PhoneE164 = z.string().regex(E164, 'must be an E.164 phone number such as +14155550123');

/** What people write between a number's digits and is never part of it: spaces, dashes, dots, parentheses. */
const PHONE_PUNCTUATION = /[\s\-.()]/g;

/**
 * `value` as E.164 once spaces, dashes, dots and parentheses are taken out (`+1 (415) 555-0199` is
 * `+14155550199`); undefined when it is not one then: no leading `+` and country code (the country
 * cannot be told), letters, an extension.
 */
export function e164Of(value: string): string | undefined {
  const digits = value.replace(PHONE_PUNCTUATION, '');
  return E164.test(digits) ? digits : undefined;
}

/**
 * A phone number a partner sends and the platform passes on (a driver's): taken as E.164 written
 * with spaces, dashes, dots or parentheses if need be, which are taken out, so what is stored and
 * relayed is always E.164; anything else is refused (400 `validation_failed` naming the field),
 * since only the partner knows the number's country. Input only: what the platform sends is
 * `PhoneE164`.
 */
export const SentPhoneE164 = z
  .string()
  .max(40)
  .transform((value, ctx) => {
    const e164 = e164Of(value);
    if (e164 !== undefined) return e164;
    ctx.issues.push({
      code: 'custom',
      input: value,
      message: `must be an E.164 phone number such as +14155550123 (+ and the country code; spaces, dashes, dots and parentheses are ignored), not ${JSON.stringify(value)}.`,
    });
    return z.NEVER;
  });

/**
 * An absolute http(s) URL a partner sends that the platform passes on or redirects a browser to:
 * `javascript:`, `data:` or `file:` would reach another partner's pages. Zod's "Invalid URL" would
 * not say that the scheme is the problem.
 */
export const httpUrl = () => HTTP_URL.max(2048, 'must be at most 2048 characters');
const HTTP_URL = z.url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' });

/** The scheme rule of `httpUrl()` (no length limit), for a URL checked outside a request schema. */
export const isHttpUrl = (url: string): boolean => HTTP_URL.safeParse(url).success;

/**
 * An http(s) URL a partner may leave empty: `""` (how many serialisers write a string they have no
 * value for) is no URL, read as absent; anything else is `httpUrl()`. Input only.
 */
export const sentHttpUrlOrEmpty = () =>
  z.string().transform((value, ctx) => {
    if (value === '') return undefined;
    const url = httpUrl().safeParse(value);
    if (url.success) return url.data;
    for (const issue of url.error.issues)
      ctx.issues.push({ code: 'custom', input: value, message: issue.message });
    return z.NEVER;
  });

/**
 * Before this (2001-09-09) an "epoch ms" time is almost surely seconds sent where milliseconds go:
 * read as ms it is a day in 1970, a pause over before it began. Refused, saying so.
 */
export const EPOCH_MS_MIN = 1_000_000_000_000;
/**
 * The last millisecond of the year 9999: later, a JS `Date` writes a six-digit year (or none at all
 * past 8.64e15) that PostgreSQL refuses, so a time past it would fail where it is stored (a 500).
 */
export const EPOCH_MS_MAX = 253_402_300_799_999;
/** A time as epoch milliseconds (an integer), refusing a value in seconds with a sentence saying so. */
export const epochMs = () =>
  z
    .number()
    .int()
    .refine((v) => v >= EPOCH_MS_MIN, {
      error: (issue) =>
        `must be epoch milliseconds; ${String(issue.input)} looks like seconds (multiply by 1000).`,
    })
    .refine((v) => v <= EPOCH_MS_MAX, {
      error: `must be epoch milliseconds before the year 10000 (at most ${EPOCH_MS_MAX}).`,
    });
