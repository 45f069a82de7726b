import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import { Allergen, CatalogHoliday, CatalogSchedule } from '../become-a-pos/catalog.ts';
import { MERCHANT_TOKEN_ERRORS } from '../become-a-pos/locations.ts';

/**
 * The menu file a DSP downloads (wire notes "Menu file"): v1 nested, v2 flat for DSPs with the v2
 * flag. Every object carries the platform's `stream_id`, stable across publishes; prices are integers
 * in the smallest unit with a lower-case `currency`.
 */

const streamId = z
  .string()
  .meta({ description: "The platform's id of the object, stable across publishes." });
const price = z.number().int().nonnegative().meta({ description: 'Integer, in the smallest currency unit.' });
const currency = z.string().meta({ description: 'Lower-case ISO-4217, e.g. `usd`.' });
const images = z.array(z.object({ url: z.string() })).optional();

export const MenuTax = z
  .object({
    stream_id: streamId,
    name: z.string(),
    rate: z.number().meta({ description: 'Percent.' }),
    is_inclusive: z.boolean().optional(),
    is_default: z.boolean().optional(),
  })
  .meta({ id: 'MenuTax' });

export const MenuHoliday = CatalogHoliday.extend({ recurring_yearly: z.boolean() }).meta({
  id: 'MenuHoliday',
  description: 'A day the hours differ: `hours` open, or closed all day without them.',
});

export const MenuModifierGroupRules = z
  .object({
    selection_type: z.enum(['single', 'single_proportion', 'multiple']),
    minimum_unique_modifiers_allowed: z.number().int().nonnegative(),
    maximum_unique_modifiers_allowed: z.number().int().nonnegative(),
    amount_of_modifiers_free: z.number().int().nonnegative(),
  })
  .meta({ id: 'MenuModifierGroupRules' });

const defaults = z
  .array(z.object({ modifier_id: streamId, quantity: z.number().int().nonnegative() }))
  .optional()
  .meta({ description: 'Modifiers chosen unless the customer changes them.' });

export interface MenuModifierGroupV1 {
  stream_id: string;
  name: string;
  modifiers: MenuModifierV1[];
  rules?: z.infer<typeof MenuModifierGroupRules> | undefined;
  default_modifier_quantities?: { modifier_id: string; quantity: number }[] | undefined;
}
export interface MenuModifierV1 {
  stream_id: string;
  name: string;
  price: number;
  currency: string;
  images?: { url: string }[] | undefined;
  is_active?: boolean | undefined;
  nested_modifier_groups: MenuModifierGroupV1[];
}

export const MenuModifierGroupV1: z.ZodType<MenuModifierGroupV1> = z
  .lazy(() =>
    z.object({
      stream_id: streamId,
      name: z.string(),
      modifiers: z.array(MenuModifierV1),
      rules: MenuModifierGroupRules.optional(),
      default_modifier_quantities: defaults,
    }),
  )
  .meta({ id: 'MenuModifierGroupV1' });
export const MenuModifierV1: z.ZodType<MenuModifierV1> = z
  .lazy(() =>
    z.object({
      stream_id: streamId,
      name: z.string(),
      price,
      currency,
      images,
      is_active: z.boolean().optional(),
      nested_modifier_groups: z.array(MenuModifierGroupV1),
    }),
  )
  .meta({ id: 'MenuModifierV1' });

export const MenuVariation = z
  .object({
    stream_id: streamId.meta({ description: 'What a DSP order names as an item `id`.' }),
    name: z.string(),
    price,
    currency,
    is_active: z.boolean().optional(),
    sku: z.string().optional(),
    upc: z.string().optional(),
    stock_count: z.number().int().optional(),
  })
  .meta({ id: 'MenuVariation', description: 'A size or variation: what an order names.' });

/** An item (the restaurant's item family) in either form: v1 nests its groups and variations, v2 names them. */
const itemFields = {
  stream_id: streamId.meta({ description: 'What a DSP order names as an item `item_id`.' }),
  name: z.string(),
  description: z.string().optional(),
  images,
  is_active: z.boolean().optional(),
  is_alcohol: z.boolean().optional(),
  allergens: z.array(Allergen).optional(),
  tax_ids: z.array(streamId),
  default_item_id: streamId.optional(),
};
const categoryFields = { stream_id: streamId, name: z.string(), description: z.string().optional() };
const menuFields = { stream_id: streamId, name: z.string(), schedule: CatalogSchedule };

export const MenuItemV1 = z
  .object({
    ...itemFields,
    modifier_groups: z.array(MenuModifierGroupV1),
    variations: z.array(MenuVariation),
  })
  .meta({ id: 'MenuItemV1' });

export const MenuCategoryV1 = z
  .object({
    ...categoryFields,
    items: z.array(MenuItemV1),
  })
  .meta({ id: 'MenuCategoryV1' });

const fileCommon = {
  prep_time_minutes: z.number().int().nonnegative().meta({ description: 'For display only.' }),
  taxes: z.array(MenuTax),
  holidays: z.array(MenuHoliday),
};

export const MenuFileV1 = z
  .object({
    ...fileCommon,
    menus: z.array(z.object({ ...menuFields, categories: z.array(MenuCategoryV1) }).meta({ id: 'MenuV1' })),
  })
  .meta({ id: 'MenuFileV1', description: 'The nested menu file: menus hold categories, items, variations.' });
export type MenuFileV1 = z.infer<typeof MenuFileV1>;

const priceOverride = z.object({ menu_id: streamId, price });

export const MenuFileV2 = z
  .object({
    ...fileCommon,
    menus: z.array(z.object({ ...menuFields, category_ids: z.array(streamId) }).meta({ id: 'MenuV2' })),
    categories: z.array(
      z.object({ ...categoryFields, item_family_ids: z.array(streamId) }).meta({ id: 'MenuCategoryV2' }),
    ),
    item_families: z.array(
      z
        .object({ ...itemFields, item_ids: z.array(streamId), modifier_group_ids: z.array(streamId) })
        .meta({ id: 'MenuItemFamilyV2' }),
    ),
    items: z.array(
      MenuVariation.extend({
        menu_specific_overrides: z
          .array(priceOverride)
          .optional()
          .meta({ description: 'The price on a menu where it differs.' }),
      }).meta({ id: 'MenuItemV2' }),
    ),
    modifier_groups: z.array(
      z
        .object({
          stream_id: streamId,
          name: z.string(),
          modifier_ids: z.array(streamId),
          rules: MenuModifierGroupRules.optional(),
          default_modifier_quantities: defaults,
          overrides: z
            .array(
              z.object({
                parent_id: streamId,
                parent_type: z.enum(['item_family', 'modifier']),
                override_rules: MenuModifierGroupRules,
              }),
            )
            .optional(),
        })
        .meta({ id: 'MenuModifierGroupV2' }),
    ),
    modifiers: z.array(
      z
        .object({
          stream_id: streamId,
          name: z.string(),
          price,
          currency,
          images,
          is_active: z.boolean().optional(),
          nested_modifier_group_ids: z.array(streamId).optional(),
          menu_specific_overrides: z.array(priceOverride).optional(),
        })
        .meta({ id: 'MenuModifierV2' }),
    ),
  })
  .meta({ id: 'MenuFileV2', description: 'The flat menu file: every object once, linked by `stream_id`.' });
export type MenuFileV2 = z.infer<typeof MenuFileV2>;

export const MenuFile = z
  .union([MenuFileV2, MenuFileV1])
  .meta({ id: 'MenuFile', description: 'A menu file in either form (v2 has `item_families`).' });
export type MenuFile = z.infer<typeof MenuFile>;

/** A small v1 file: one menu, one item in two sizes with a salsa choice, one tax. */
export const EXAMPLE_MENU_FILE: MenuFileV1 = {
  prep_time_minutes: 20,
  taxes: [
    {
      stream_id: 'tax_0UD4mFUEPtvwSiMxrLbaw5',
      name: 'Sales tax',
      rate: 8.625,
      is_inclusive: false,
      is_default: true,
    },
  ],
  holidays: [{ date: '12-25', name: 'Christmas', recurring_yearly: true }],
  menus: [
    {
      stream_id: 'mnu_uOb3M8bW8NIelpKrP8bWCe',
      name: 'All day',
      schedule: { monday: ['11:00-22:00'], friday: ['11:00-23:00'], saturday: ['10:00-23:00'] },
      categories: [
        {
          stream_id: 'cat_SdXBdfOH9FUY7g8m3W8E2i',
          name: 'Tacos',
          items: [
            {
              stream_id: 'ifm__xwt7rSBqIp_YSvp3Elfua',
              name: 'Carnitas tacos',
              is_active: true,
              allergens: ['gluten'],
              tax_ids: ['tax_0UD4mFUEPtvwSiMxrLbaw5'],
              default_item_id: 'itm_EuytU8tGko4vYLC2m7dIOb',
              modifier_groups: [
                {
                  stream_id: 'mgr_Zb4iKSZpBlOfg8BEEj56Ub',
                  name: 'Salsa',
                  modifiers: [
                    {
                      stream_id: 'mod_2LqBv0dG3qVt3j7W1xk9aQ',
                      name: 'Salsa verde',
                      price: 0,
                      currency: 'usd',
                      is_active: true,
                      nested_modifier_groups: [],
                    },
                    {
                      stream_id: 'mod_9dJ2xk0aPq7Lw3ZrT6yB1c',
                      name: 'Habanero',
                      price: 50,
                      currency: 'usd',
                      is_active: true,
                      nested_modifier_groups: [],
                    },
                  ],
                  rules: {
                    selection_type: 'single',
                    minimum_unique_modifiers_allowed: 1,
                    maximum_unique_modifiers_allowed: 1,
                    amount_of_modifiers_free: 0,
                  },
                },
              ],
              variations: [
                {
                  stream_id: 'itm_EuytU8tGko4vYLC2m7dIOb',
                  name: 'One taco',
                  price: 450,
                  currency: 'usd',
                  is_active: true,
                },
                {
                  stream_id: 'itm_4rT9pLq2Zx8Vb1Nc6Md3Ks',
                  name: 'Three tacos',
                  price: 1200,
                  currency: 'usd',
                  is_active: true,
                },
              ],
            },
          ],
        },
      ],
    },
  ],
};

export const dspGetMenuFile = defineOperation({
  api: 'become-a-dsp',
  operationId: 'dspGetMenuFile',
  method: 'GET',
  path: '/stream-dsp/v1/menuFileS3Url',
  summary: "A store's last menu file (Stream does not call it)",
  description: `Your store's last menu file, as you downloaded it (\`v1\` nested, or \`v2\` flat for DSPs with the v2 flag).
Part of the contract, but Stream does not call it and certification does not check it: you take each menu from
the \`download_url\` of a \`location.publish\` event (a signed, expiring link on Stream). The sandbox DSP serves
the last file it downloaded here, so a developer can read what it got.`,
  tags: ['Menus'],
  tagDescriptions: { Menus: 'The menu files the platform publishes to your stores.' },
  security: { kind: 'merchant-bearer' },
  servedBy: 'partner',
  request: {
    query: z.object({ location_id: z.string().min(1).meta({ description: 'Your id of the store.' }) }),
  },
  responses: { 200: { description: 'The menu file.', schema: MenuFile, example: EXAMPLE_MENU_FILE } },
  errors: ['validation_failed', 'not_found', ...MERCHANT_TOKEN_ERRORS],
});

const INCOMPLETE_LINK = 'missing or not as sent: use the whole download_url, its query included';

export const downloadMenuFile = defineOperation({
  api: 'become-a-dsp',
  operationId: 'downloadMenuFile',
  method: 'GET',
  path: '/menu-files/{publication_id}',
  summary: 'Download a published menu file',
  description: `The \`download_url\` of a \`location.publish\` event: the store's menu file as published, v1 or v2. The link is
signed and valid for 24 hours; an altered or expired link is 404 \`not_found\` (the next publication sends a new one).`,
  tags: ['Menus'],
  security: { kind: 'none' },
  servedBy: 'platform',
  request: {
    params: z.object({ publication_id: z.string().min(1).max(64) }),
    query: z.object({
      // A link cut short (its query lost) is told so, not "expected number, received NaN".
      expires: z.coerce
        .number({ error: INCOMPLETE_LINK })
        .int({ error: INCOMPLETE_LINK })
        .meta({ description: 'When the link expires, epoch ms.' }),
      signature: z.string({ error: INCOMPLETE_LINK }).min(1, { error: INCOMPLETE_LINK }).max(128),
    }),
  },
  responses: { 200: { description: 'The menu file.', schema: MenuFile, example: EXAMPLE_MENU_FILE } },
  errors: ['validation_failed', 'not_found'],
});
