import { z } from 'zod';
import { partnerId } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import { LOCATIONS_OPERATION, MERCHANT_TOKEN_ERRORS } from './locations.ts';

/**
 * The catalog a POS serves at `GET /stream-pos/v1/catalog` (platform.md section 3 "POS contract",
 * wire notes "Calls the platform makes to a POS"): one object keyed by kind. The platform checks each
 * object on its own with these schemas, so one bad object is a problem named on that object, never a
 * refused catalog; the rules of section 5 are applied when the catalog is normalised.
 */

/** The delivery platforms a price may be overridden for (section 9). */
export const PRICE_PLATFORMS = ['doordash', 'uber', 'grubhub', 'chownow', 'flipdish'] as const;
export const PricePlatform = z.enum(PRICE_PLATFORMS).meta({
  id: 'PricePlatform',
  description: 'A delivery platform whose price may differ from the catalog price.',
});

/** The allergens a catalog may name (section 9). */
export const ALLERGENS = [
  'eggs',
  'soybeans',
  'dairy',
  'sesame',
  'lupin',
  'celery',
  'mustard',
  'gluten',
  'wheat',
  'rye',
  'barley',
  'oats',
  'spelt',
  'kamut',
  'shellfish',
  'crustaceans',
  'molluscs',
  'fish',
  'almonds',
  'hazelnuts',
  'walnuts',
  'cashews',
  'pecan',
  'brazil',
  'pistachio',
  'macadamia',
  'peanuts',
  'tree_nuts',
  'sulphur_dioxide_sulphites',
] as const;
export const Allergen = z.enum(ALLERGENS).meta({ id: 'Allergen' });

export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;

/** Your id of an object, or of a location: many POS number theirs, so a whole number is its decimal string. */
const providerId = (description = 'Your id of the object it names.') => partnerId(description);
const ownId = () => providerId('Your id of it, unique within its kind.');
const ids = (what: string) =>
  z
    .array(providerId())
    .optional()
    .meta({ description: `The \`provider_id\`s of its ${what}.` });
const price = z
  .number()
  .int()
  .nonnegative()
  .meta({ description: 'Integer, in the smallest currency unit (150 = 1.50).' });
const currency = z.string().meta({ description: 'Upper-case ISO-4217, e.g. `USD`.' });
const isActive = z.boolean().optional().meta({ description: 'Unset counts as active.' });

/** `HH:mm-HH:mm` ranges per weekday, in the location's time zone. */
export const CatalogSchedule = z
  .object(
    Object.fromEntries(WEEKDAYS.map((d) => [d, z.array(z.string()).optional()])) as Record<
      (typeof WEEKDAYS)[number],
      z.ZodOptional<z.ZodArray<z.ZodString>>
    >,
  )
  .meta({
    id: 'CatalogSchedule',
    description:
      'Opening hours per weekday as 24-hour `HH:mm-HH:mm` ranges in the location time zone; a day absent or empty is closed. In a POS catalog a range may run past midnight (`22:00-02:00` closes at 02:00 the next day); in a menu file each range lies within its day (`24:00` ends it), so such hours arrive split over the two days.',
  });
export type CatalogSchedule = z.infer<typeof CatalogSchedule>;

export const CatalogHoliday = z
  .object({
    date: z.string().meta({ description: '`MM-DD`.' }),
    name: z.string().optional(),
    hours: z.array(z.string()).optional().meta({
      description:
        '`HH:mm-HH:mm` ranges open that day (an hour of one digit, `7:15-14:30`, is read as `07:15-14:30`); none: closed all day.',
    }),
    recurring_yearly: z.boolean().optional().meta({ description: 'Every year (default true).' }),
    specific_years: z
      .array(z.number().int())
      .optional()
      .meta({ description: 'Only these years (when not recurring).' }),
  })
  .meta({ id: 'CatalogHoliday' });
export type CatalogHoliday = z.infer<typeof CatalogHoliday>;

/** Prices and availability that differ by location, menu or delivery platform. */
const overrides = {
  location_overrides: z
    .array(
      z.object({
        location_id: providerId('Your `provider_id` of the location.'),
        price_amount: price.optional(),
        is_active: z.boolean().optional(),
      }),
    )
    .optional()
    .meta({ description: 'Per location: a price or availability that differs there.' }),
  menu_overrides: z
    .array(z.object({ menu_id: providerId('The menu.'), price_amount: price }))
    .optional()
    .meta({ description: 'Per menu: the price on that menu.' }),
  dsp_price_amount_overrides: z
    .array(z.object({ dsp: PricePlatform, price_amount: price }))
    .optional()
    .meta({ description: 'Per delivery platform: the price there.' }),
};
const priced = { price_amount: price.optional(), price_currency: currency.optional(), ...overrides };
const images = z
  .array(z.object({ provider_url: z.string() }))
  .optional()
  .meta({
    description:
      'Image URLs, passed on to every DSP in the menu file: each must be an absolute `http://` or `https://` URL without a user name or password. Another one (`javascript:`, `data:`, a relative path, credentials) is dropped with a warning; the object keeps its other fields.',
  });
const deposit = price.optional().meta({ description: 'Container deposit, in the smallest unit.' });

export const CatalogCategory = z
  .object({
    provider_id: ownId(),
    name: z.string().min(1),
    description: z.string().optional(),
    is_active: isActive,
    item_family_ids: ids('item families'),
  })
  .meta({ id: 'CatalogCategory', description: 'A section of a menu.' });

export const CatalogItemFamily = z
  .object({
    provider_id: ownId(),
    name: z.string().min(1),
    description: z.string().optional(),
    is_active: isActive,
    ...priced,
    item_ids: ids('items (sizes, variations); or give each item its `item_family_id`'),
    modifier_group_ids: ids('modifier groups'),
    tax_ids: ids('taxes'),
    use_default_tax_rates: z
      .boolean()
      .optional()
      .meta({ description: 'Apply the default taxes (`is_default`).' }),
    is_tax_exempt: z.boolean().optional(),
    is_alcohol: z.boolean().optional(),
    allergens: z.array(Allergen).optional(),
    upc: z.string().optional(),
    sku: z.string().optional(),
    container_deposit: deposit,
    images,
  })
  .meta({
    id: 'CatalogItemFamily',
    description:
      'A dish as the customer picks it (a DSP "item"), sold in one or more items (sizes). Without a price it needs at least one item.',
  });

export const CatalogItem = z
  .object({
    provider_id: ownId(),
    name: z.string().min(1),
    item_family_id: providerId('The item family it is a size of.').optional(),
    is_active: isActive,
    ...priced,
    sku: z.string().optional(),
    upc: z.string().optional(),
    stock_count: z.number().int().nonnegative().optional(),
    container_deposit: deposit,
  })
  .meta({ id: 'CatalogItem', description: 'A size or variation of an item family: what is ordered.' });

export const CatalogModifierGroupRules = z
  .object({
    selection_type: z.enum(['single', 'single_proportion', 'multiple']).optional().meta({
      description: 'Default `single`.',
    }),
    minimum_unique_modifiers_allowed: z.number().int().nonnegative().optional(),
    maximum_unique_modifiers_allowed: z.number().int().nonnegative().optional(),
    amount_of_modifiers_free: z.number().int().nonnegative().optional(),
    default_modifier_quantities: z
      .array(z.object({ modifier_id: providerId('The modifier.'), quantity: z.number().int().nonnegative() }))
      .optional(),
  })
  .meta({ id: 'CatalogModifierGroupRules' });

export const CatalogModifierGroup = z
  .object({
    provider_id: ownId(),
    name: z.string().min(1),
    is_active: isActive,
    modifier_ids: ids('modifiers'),
    rules: CatalogModifierGroupRules.optional(),
  })
  .meta({ id: 'CatalogModifierGroup', description: 'A choice offered with an item family or a modifier.' });

export const CatalogModifier = z
  .object({
    provider_id: ownId(),
    name: z.string().min(1),
    is_active: isActive,
    ...priced,
    modifier_group_ids: ids('nested modifier groups'),
    container_deposit: deposit,
    images,
  })
  .meta({ id: 'CatalogModifier', description: 'One option of a modifier group.' });

export const CatalogMenu = z
  .object({
    provider_id: ownId(),
    name: z.string().min(1),
    is_active: isActive,
    schedule: CatalogSchedule.optional(),
    category_ids: ids('categories'),
    holidays: z.array(CatalogHoliday).optional(),
    should_adjust_for_prep_time: z
      .boolean()
      .optional()
      .meta({ description: 'Close ordering the prep time before the schedule ends.' }),
    location_memberships: z
      .array(providerId())
      .optional()
      .meta({ description: 'The locations (your `provider_id`s) that sell it; absent: every location.' }),
  })
  .meta({ id: 'CatalogMenu', description: 'A menu and when it is served.' });

export const CatalogTax = z
  .object({
    provider_id: ownId(),
    name: z.string().min(1),
    rate: z.number().meta({ description: 'Percent: `8.875` is 8.875 %.' }),
    is_inclusive: z.boolean().optional().meta({ description: 'Included in the prices.' }),
    is_default: z.boolean().optional().meta({ description: 'Applied to items that name no tax.' }),
    is_active: isActive,
  })
  .meta({ id: 'CatalogTax' });

/** Each kind, its object schema, in the order the catalog lists them. */
export const CATALOG_KINDS = {
  category: CatalogCategory,
  item_family: CatalogItemFamily,
  item: CatalogItem,
  modifier_group: CatalogModifierGroup,
  modifier: CatalogModifier,
  menu: CatalogMenu,
  tax: CatalogTax,
} as const;
export type CatalogKind = keyof typeof CATALOG_KINDS;
export type CatalogObjects = { [K in CatalogKind]: z.infer<(typeof CATALOG_KINDS)[K]> };

export const PosCatalog = z
  .object(
    Object.fromEntries(
      Object.entries(CATALOG_KINDS).map(([kind, schema]) => [kind, z.array(schema).optional()]),
    ) as { [K in CatalogKind]: z.ZodOptional<z.ZodArray<(typeof CATALOG_KINDS)[K]>> },
  )
  .meta({
    id: 'PosCatalog',
    description:
      'The whole catalog of the merchant (or of the location named in `X-Provider-Location-Id`), keyed by kind. A kind absent is empty.',
  });
export type PosCatalog = z.infer<typeof PosCatalog>;

export const EXAMPLE_CATALOG: PosCatalog = {
  category: [{ provider_id: 'cat-tacos', name: 'Tacos', item_family_ids: ['fam-carnitas'] }],
  item_family: [
    {
      provider_id: 'fam-carnitas',
      name: 'Carnitas taco',
      description: 'Slow-braised pork, onion, cilantro.',
      modifier_group_ids: ['grp-salsa'],
      tax_ids: ['tax-sf'],
      allergens: ['gluten'],
      images: [{ provider_url: 'https://pos.example/img/carnitas.jpg' }],
    },
  ],
  item: [
    {
      provider_id: 'itm-carnitas-1',
      name: 'One taco',
      item_family_id: 'fam-carnitas',
      price_amount: 450,
      price_currency: 'USD',
      dsp_price_amount_overrides: [{ dsp: 'uber', price_amount: 500 }],
    },
    {
      provider_id: 'itm-carnitas-3',
      name: 'Three tacos',
      item_family_id: 'fam-carnitas',
      price_amount: 1200,
      price_currency: 'USD',
    },
  ],
  modifier_group: [
    {
      provider_id: 'grp-salsa',
      name: 'Salsa',
      modifier_ids: ['mod-verde', 'mod-roja'],
      rules: {
        selection_type: 'single',
        minimum_unique_modifiers_allowed: 0,
        maximum_unique_modifiers_allowed: 1,
      },
    },
  ],
  modifier: [
    { provider_id: 'mod-verde', name: 'Salsa verde', price_amount: 0, price_currency: 'USD' },
    { provider_id: 'mod-roja', name: 'Salsa roja', price_amount: 50, price_currency: 'USD' },
  ],
  menu: [
    {
      provider_id: 'menu-all-day',
      name: 'All day',
      schedule: {
        monday: ['11:00-22:00'],
        tuesday: ['11:00-22:00'],
        wednesday: ['11:00-22:00'],
        thursday: ['11:00-22:00'],
        friday: ['11:00-23:00'],
        saturday: ['10:00-23:00'],
        sunday: ['10:00-21:00'],
      },
      category_ids: ['cat-tacos'],
      holidays: [{ date: '12-25', name: 'Christmas' }],
    },
  ],
  tax: [{ provider_id: 'tax-sf', name: 'SF sales tax', rate: 8.625, is_inclusive: false, is_default: true }],
};

export const posGetCatalog = defineOperation({
  ...LOCATIONS_OPERATION,
  api: 'become-a-pos',
  operationId: 'posGetCatalog',
  method: 'GET',
  path: '/stream-pos/v1/catalog',
  tags: ['Catalog'],
  summary: "Get the merchant's catalog",
  description: `The platform pulls the whole catalog when a location is bound and after each \`location.catalog.updated\`
webhook, with \`X-Provider-Merchant-Id\` (the merchant account) and \`X-Provider-Location-Id\` (your id of the location),
and builds every bound marketplace store's menu from it. Each object is checked on its own: a duplicate
\`provider_id\` within a kind is dropped with a warning, a broken object is reported by kind, id and field
(\`GET /menus/locations/{location_id}/catalog\`) and left out, and the rest is published; so is an object naming one
the catalog does not hold and cannot be sold without (a family's modifier group or tax), while a list naming one
only loses that entry. Ids may be strings or whole numbers (\`1042\` is read as \`"1042"\`).`,
  tagDescriptions: { Catalog: 'Your catalog, from which the platform builds every marketplace menu.' },
  request: {
    headers: z.object({
      'x-provider-merchant-id': z
        .string()
        .optional()
        .meta({ description: 'Your id of the merchant account.' }),
      'x-provider-location-id': z.string().optional().meta({ description: 'Your id of the location.' }),
    }),
  },
  responses: {
    200: { description: 'The catalog.', schema: PosCatalog, example: EXAMPLE_CATALOG },
  },
  errors: MERCHANT_TOKEN_ERRORS,
});
