import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import { MERCHANT_TOKEN_ERRORS } from './locations.ts';

/**
 * The outcome of each menu publication, told to the POS at `POST /stream-pos/v1/events`
 * (platform.md section 3 "Menu publish success and failure events", section 8's 24 codes).
 */

/** Every menu publish failure code, with when it occurs: the docs' table is generated from this. */
export const MENU_FAILURE_CODES = {
  MENU_BLANK:
    "The menu file would hold no item: every menu is empty, inactive or not served at the location. When its categories list item families that were all left out for a problem (or never sent), the reason says how many: fix them as the catalog's problems say.",
  NO_MENUS_ASSIGNED: 'The catalog assigns no menu to the location (`location_memberships` leaves it out).',
  MENU_SCHEDULE_MISSING:
    'A menu has no opening hours on any day (or only ranges that are not `HH:mm-HH:mm`).',
  MENU_CATALOG_MISMATCH:
    'An object names an id the catalog does not hold (a category, item family, item, modifier group, modifier or tax). Not met today: such a reference is settled as the catalog is read (the object left out, or its list entry dropped, with a problem on the catalog), even in a version stored before that was done.',
  MENU_ITEMS_PRICE_TOO_HIGH:
    'An item or modifier costs more than the DSP accepts (100,000.00 in any currency).',
  TAX_RATE_TOO_HIGH: 'A tax rate is above 100 %.',
  INVALID_TAX_RATE: 'A tax rate is negative or not a number.',
  MENU_CONTENT_ISSUE:
    'The DSP refused the content (say, modifiers nested deeper than it allows); found locally for nesting.',
  MENU_COMPLIANCE_ISSUE: 'The DSP refused the menu for its own rules (alcohol, allergens, imagery).',
  MENU_ALREADY_PROCESSING:
    'A publish of this store was in flight; the newer catalog is published right after it, never lost.',
  DSP_REJECTED: 'The DSP answered 400 or 422 without a more specific reason.',
  DSP_THROTTLED_REQUEST: 'The DSP answered 429 past the retries (its `Retry-After` honoured).',
  DSP_UNAUTHORIZED: "The DSP answered 401: the merchant's authorisation no longer works.",
  DSP_FORBIDDEN: 'The DSP answered 403: the store is not the merchant’s, or publishing is not allowed.',
  DSP_INTERNAL_FAILURE: 'The DSP answered 5xx (or did not answer) until the retries ran out.',
  DSP_UNKNOWN: 'The DSP answered something else the platform cannot read.',
  MENU_FAILURE_UNKNOWN: 'The publication failed for a reason the platform could not name.',
  DSP_ACCOUNT_NOT_FOUND:
    'Binding: the DSP refused to connect the store, naming DSP_ACCOUNT_NOT_FOUND (it knows no such merchant account).',
  DSP_LOCATION_IS_NOT_ELIGIBLE:
    'Binding: the DSP refused to connect the store, naming DSP_LOCATION_IS_NOT_ELIGIBLE (closed, not onboarded).',
  DUPLICATE_LOCATION_ID:
    'Binding: the DSP refused to connect the store, naming DUPLICATE_LOCATION_ID (bound to another location there).',
  DSP_LOCATION_ALREADY_ACTIVE:
    'Binding: the DSP refused to connect the store, naming DSP_LOCATION_ALREADY_ACTIVE (live with another provider).',
  ONBOARDING_FAILURE_UNKNOWN:
    'Binding: the DSP did not accept the connection until the retries ran out, without naming a reason.',
  OUTDATED_HEAD:
    'An object update (`location.catalog.object.updated`) names an object the store’s latest menu no longer holds; nothing is sent to that store.',
  UPDATE_ON_UNPUBLISHED:
    'An object update arrived for a store with no published menu yet; nothing is sent to that store.',
} as const;
export type MenuFailureCode = keyof typeof MENU_FAILURE_CODES;
export const MenuFailureCode = z
  .enum(Object.keys(MENU_FAILURE_CODES) as [MenuFailureCode, ...MenuFailureCode[]])
  .meta({ id: 'MenuFailureCode', description: 'Why a menu publication failed.' });

const data = {
  status: z.enum(['success', 'failure']),
  source: z.string().meta({ description: 'The DSP (its slug).' }),
  dsp_provider_location_id: z.string().meta({ description: "The DSP's id of the store." }),
  menu_id: z.string().meta({ description: 'The publication (`mpub_…`).' }),
  location_id: z.string().meta({ description: 'Your id of the location.' }),
};
const createdAt = z.number().int().meta({ description: 'When it happened, epoch milliseconds.' });

export const MenuPublishSuccessEvent = z
  .object({
    type: z.literal('menu.publish_success'),
    data: z.object({ ...data, status: z.literal('success') }),
    created_at: createdAt,
  })
  .meta({ id: 'MenuPublishSuccessEvent', description: 'The DSP store took the menu.' });

export const MenuPublishFailureEvent = z
  .object({
    type: z.literal('menu.publish_failure'),
    data: z.object({
      ...data,
      status: z.literal('failure'),
      failure_code: MenuFailureCode,
      failure_reason: z.string().meta({ description: 'What went wrong, and what to fix.' }),
    }),
    created_at: createdAt,
  })
  .meta({ id: 'MenuPublishFailureEvent', description: 'The menu did not reach the DSP store.' });

export const PosMenuEvent = z
  .discriminatedUnion('type', [MenuPublishSuccessEvent, MenuPublishFailureEvent])
  .meta({ id: 'PosMenuEvent', description: 'The outcome of a menu publication, told apart by `type`.' });
export type PosMenuEvent = z.infer<typeof PosMenuEvent>;

export const posReceiveEvent = defineOperation({
  api: 'become-a-pos',
  operationId: 'posReceiveEvent',
  method: 'POST',
  path: '/stream-pos/v1/events',
  summary: 'Receive a menu publication outcome',
  description: `After each publication of a location's menu to a marketplace store the platform tells you how it went:
\`menu.publish_success\`, or \`menu.publish_failure\` with one of the 24 \`failure_code\`s and a sentence saying what
to fix. Answer any 2xx (a body is ignored); anything else is retried for a day.`,
  tags: ['Catalog'],
  security: { kind: 'merchant-bearer' },
  servedBy: 'partner',
  request: {
    body: PosMenuEvent,
    example: {
      type: 'menu.publish_failure',
      data: {
        status: 'failure',
        source: 'doordash',
        dsp_provider_location_id: 'store-1002',
        menu_id: 'mpub_3c5e7a9c1e3a5c7e9a1c3e5a',
        location_id: 'loc-williamsburg',
        failure_code: 'MENU_SCHEDULE_MISSING',
        failure_reason:
          'Menu "Brunch" (menu-brunch) has no opening hours: give it at least one HH:mm-HH:mm range.',
      },
      created_at: 1795561200000,
    },
  },
  responses: { 200: { description: 'Received. Any 2xx counts; the platform reads no body.' } },
  errors: ['validation_failed', ...MERCHANT_TOKEN_ERRORS],
});
