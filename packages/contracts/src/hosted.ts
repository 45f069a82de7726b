import { z } from 'zod';
import { HostedMessage } from './envelopes.ts';
import { describedAs } from './openapi/described-as.ts';

/** The largest PostgreSQL `integer`: store ids, order ids and cents are kept in one. */
export const PG_INT_MAX = 2_147_483_647;

/**
 * The vocabulary the three hosted restaurant APIs (Menu, Order, Store) share: restaurant-apis.md
 * sections 4, 5 and 9, the `X-Store` / `X-Service-Type` / `X-Company` headers of wire-notes.md, and
 * the success envelope `{data, message, messagesDetails}`.
 */

const SERVICE_TYPES = [
  'None',
  'GrubHubEMail',
  'DoorDash',
  'GrubHub',
  'UberEats',
  'GoogleOrdering',
  'Menufy',
  'Kanekt365',
] as const;
/** `; "Uber" is not one` for a short string sent, nothing for anything else. */
const shown = (input: unknown) =>
  typeof input === 'string' && input.length <= 40 ? `; ${JSON.stringify(input)} is not one` : '';
export const ServiceType = z
  .enum(SERVICE_TYPES, {
    // In the API's words (Zod's is "Invalid option", even for a missing X-Service-Type).
    error: (issue) =>
      issue.input === undefined
        ? `is required: the service type, one of ${SERVICE_TYPES.join(', ')}`
        : `must be a service type, one of ${SERVICE_TYPES.join(', ')}${shown(issue.input)}`,
  })
  .meta({
    id: 'ServiceType',
    description:
      'The channel a call is made for. A menu serves the service types it lists; `None` is the default menu every service type falls back to.',
  });
export type ServiceType = z.infer<typeof ServiceType>;

export const OrderTypeCategory = z
  .enum(['None', 'Pickup', 'Delivery', 'Curbside', 'Catering', 'DineIn', 'ThirdPartyDelivery'])
  .meta({ id: 'OrderTypeCategory' });
export type OrderTypeCategory = z.infer<typeof OrderTypeCategory>;

/** Section 9's time zones, by the names the hosted APIs use, and the IANA zone each one is. */
export const STORE_TIME_ZONES = {
  'Hawaiian Standard Time': 'Pacific/Honolulu',
  'Alaskan Standard Time': 'America/Anchorage',
  'Pacific Standard Time': 'America/Los_Angeles',
  'Mountain Standard Time': 'America/Denver',
  'Central Standard Time': 'America/Chicago',
  'Eastern Standard Time': 'America/New_York',
  'Atlantic Standard Time': 'America/Halifax',
} as const;
export const StoreTimeZone = z
  .enum(
    Object.keys(STORE_TIME_ZONES) as [keyof typeof STORE_TIME_ZONES, ...(keyof typeof STORE_TIME_ZONES)[]],
  )
  .meta({
    id: 'StoreTimeZone',
    description:
      "The store's time zone. Business dates, operation periods and discount windows are read in it (daylight saving time included: `Eastern Standard Time` is America/New_York all year).",
  });
export type StoreTimeZone = z.infer<typeof StoreTimeZone>;

/** The store a Menu or Order call is about (wire-notes.md: store ids are integers). */
/** An integer id in a header, named in its error messages (`store id`, `company id`). */
const idHeader = (what: string, example: number) =>
  z
    .string({ error: `is required: the ${what}, a whole number such as ${example}` })
    .regex(/^\d+$/, { error: `must be a ${what}: a whole number such as ${example}`, abort: true })
    .regex(/^\d{1,10}$/, `must be a ${what} from 1 to ${PG_INT_MAX}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, `must be a ${what} from 1 to ${PG_INT_MAX}`)
        .max(PG_INT_MAX, `must be a ${what} from 1 to ${PG_INT_MAX}`),
    );

export const StoreId = idHeader('store id', 1001);
export const CompanyId = idHeader('company id', 100);

/**
 * A number in a path or query string, checked as text first: an empty value, hex, an exponent or
 * spaces are refused, not read as the number JavaScript would make of them (`Latitude=` is not 0,
 * `/Orders/0x1` is not order 1). Documented as the number it must be. A query string's values are
 * text, so the schema's input is a string: its own messages say what to send (`what`, with the
 * parameter's own example), where Zod's would ask a partner to "send a string".
 */
function numberParam(pattern: RegExp, what: string, message: string, range: z.ZodNumber, fallback?: number) {
  const param = z
    .string({
      error: (issue) =>
        issue.input === undefined ? `is required but missing; send ${what}.` : `must be ${what}, sent once.`,
    })
    .regex(pattern, message)
    .transform(Number)
    .pipe(range);
  describedAs.set(param, fallback === undefined ? range : range.default(fallback));
  return fallback === undefined ? param : param.default(fallback);
}

/** A decimal number (`40.7484`, `-73.9857`, `5`) in `range`; `example` is one the parameter takes. */
export const decimalParam = (range: z.ZodNumber, example: number, fallback?: number) =>
  numberParam(
    /^[+-]?(\d+(\.\d*)?|\.\d+)$/,
    `a number such as ${example}`,
    `must be a decimal number such as ${example}`,
    range,
    fallback,
  );

/**
 * A whole number written in digits (`4711`) in `range`; `fallback` when the parameter is absent.
 * `message` replaces the generic one where a range says more (a page's `limit`, where 4711 is too many).
 */
export const integerParam = (
  range: z.ZodNumber,
  fallback?: number,
  message = 'must be a whole number such as 4711',
) => numberParam(/^\d{1,16}$/, 'a whole number such as 4711', message, range, fallback);

export const StoreHeaders = z.object({
  'x-store': StoreId.meta({ description: 'The store the call is about (an integer store id).' }),
});
export const StoreAndServiceHeaders = StoreHeaders.extend({
  'x-service-type': ServiceType.meta({ description: 'The channel the order comes through.' }),
});

/**
 * `Idempotency-Key` on the hosted calls that create something (`POST /Orders`, the e-mail calls):
 * a retry with the same key and request is answered what the first one was, and creates nothing.
 */
export const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\x20-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters, such as a UUID')
    .optional()
    .meta({
      description:
        'A key you choose for this request (a UUID): a retry with the same key and request in the next 24 hours is answered what the first was, with `Idempotent-Replayed: true`, and creates nothing. Reused with another request: 422 `idempotency_key_reused`.',
    }),
});

/** The header a replayed answer carries (Stripe's name). */
export const REPLAYED_HEADER = {
  'Idempotent-Replayed': {
    description:
      '`true` when the answer is the stored answer of an earlier request with the same `Idempotency-Key`.',
    schema: z.literal('true'),
  },
};

/** HH:mm, 24-hour, five characters (section 5). */
export const ClockTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a 24-hour time of 5 characters, HH:mm, such as 09:30');

/** A calendar date, YYYY-MM-DD (year 0000 does not exist: PostgreSQL refuses it). */
export const BusinessDate = z.iso
  .date('must be a date as YYYY-MM-DD')
  .refine((d) => !d.startsWith('0000'), 'must be a date as YYYY-MM-DD of year 0001 or later');

/** The most cents one amount may be: what a PostgreSQL integer holds (payments are stored in one). */
export const MAX_CENTS = PG_INT_MAX;

/** Money in the lowest currency unit (cents): a whole number of 0 to `MAX_CENTS`. */
export const Cents = z
  .number()
  .int('must be a whole number of cents')
  .min(0, 'must be 0 or more')
  .max(MAX_CENTS, `must be at most ${MAX_CENTS} cents`);

/**
 * When an order is due: a date-time with its offset, of a year from 2000 to 2099 as written (the
 * client's own date: `2099-12-31T23:30:00-05:00` is in range though it is 2100 in UTC, and
 * `2100-01-01T10:30:00+14:00` is not, though it is 2099 in UTC). Outside it a store's business date
 * has no YYYY-MM-DD (year 0) or means nothing to a restaurant.
 */
const dueTime = (message: string) =>
  z.iso.datetime({ offset: true, message }).refine((v) => {
    const year = Number(v.slice(0, 4));
    return year >= 2000 && year <= 2099;
  }, 'must be a date-time from 2000 to 2099 (the year as written), such as 2026-12-01T18:30:00-05:00');
export const DueTime = dueTime('must be a date-time with its offset, such as 2026-12-01T18:30:00-05:00');
/**
 * `DueTime` in a query string, where a `+` offset sent as it is arrives as a space
 * (`18:30:00 05:00`): the refusal says to write it `%2B`.
 */
export const DueTimeParam = dueTime(
  'must be a date-time with its offset, such as 2026-12-01T18:30:00-05:00; in a URL write a + offset as %2B (2026-12-01T18:30:00%2B01:00): a + alone reads as a space',
);

/** A hosted answer: the data, a sentence, and any warnings or notes about it. */
export function hostedAnswer<T extends z.ZodType>(data: T) {
  return z.object({
    data,
    message: z.string().meta({ description: 'A sentence about the answer.' }),
    messagesDetails: z.array(HostedMessage).meta({
      description: 'Notes about the answer: a WARNING for something ignored or not applied, INFO otherwise.',
    }),
  });
}

/** Errors every hosted call behind a bearer token and a store can answer. */
export const HOSTED_ERRORS = [
  'missing_token',
  'invalid_token',
  'token_expired',
  'insufficient_scope',
  'validation_failed',
  'not_found',
] as const;
export const HOSTED_BODY_ERRORS = [
  ...HOSTED_ERRORS,
  'invalid_json',
  'unsupported_media_type',
  'payload_too_large',
] as const;

/** A display name: 1 to 100 characters. */
export const DisplayName = z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters');
/** An id inside a menu (item, group, modifier, order type…): 1 to 25 characters. */
export const MenuObjectId = z.string().min(1, 'must not be empty').max(25, 'must be at most 25 characters');
