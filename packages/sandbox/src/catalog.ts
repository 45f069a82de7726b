import type { PosCatalog } from '@stream/contracts/apis/become-a-pos/catalog';

/**
 * The sandbox POS's catalog, for every location of its demo merchants: three menus with different
 * schedules (brunch only at the Mission location), item families with sizes, modifiers nested three
 * levels, an inclusive and an exclusive tax, holidays, platform and menu price overrides, an inactive
 * item. Realistic on purpose: the platform's menu tests and guides are built on it.
 */
const weekdays = (ranges: string[]) => ({
  monday: ranges,
  tuesday: ranges,
  wednesday: ranges,
  thursday: ranges,
  friday: ranges,
});

export const DEMO_CATALOG: PosCatalog = {
  menu: [
    {
      provider_id: 'menu-lunch',
      name: 'Lunch',
      schedule: weekdays(['11:00-15:00']),
      category_ids: ['cat-tacos', 'cat-bowls', 'cat-drinks'],
      holidays: [
        { date: '12-25', name: 'Christmas' },
        { date: '07-04', name: 'Independence Day', hours: ['12:00-16:00'] },
      ],
    },
    {
      provider_id: 'menu-dinner',
      name: 'Dinner',
      schedule: { ...weekdays(['17:00-22:00']), saturday: ['17:00-23:30'], sunday: ['17:00-21:00'] },
      category_ids: ['cat-tacos', 'cat-bowls', 'cat-drinks'],
      holidays: [{ date: '12-25', name: 'Christmas' }],
      should_adjust_for_prep_time: true,
    },
    {
      provider_id: 'menu-brunch',
      name: 'Weekend brunch',
      schedule: { saturday: ['09:00-14:00'], sunday: ['09:00-14:00'] },
      category_ids: ['cat-brunch', 'cat-drinks'],
      location_memberships: ['loc-mission'],
      holidays: [{ date: '01-01', name: "New Year's Day", recurring_yearly: false, specific_years: [2027] }],
    },
  ],
  category: [
    { provider_id: 'cat-tacos', name: 'Tacos', item_family_ids: ['fam-carnitas', 'fam-veggie'] },
    {
      provider_id: 'cat-bowls',
      name: 'Bowls',
      description: 'Rice, beans and more.',
      item_family_ids: ['fam-bowl'],
    },
    { provider_id: 'cat-drinks', name: 'Drinks', item_family_ids: ['fam-horchata', 'fam-beer'] },
    { provider_id: 'cat-brunch', name: 'Brunch', item_family_ids: ['fam-chilaquiles'] },
  ],
  item_family: [
    {
      provider_id: 'fam-carnitas',
      name: 'Carnitas tacos',
      description: 'Slow-braised pork, onion, cilantro, corn tortillas.',
      modifier_group_ids: ['grp-salsa', 'grp-extras'],
      tax_ids: ['tax-sales'],
      allergens: ['gluten'],
      images: [{ provider_url: 'https://sandbox.stream.example/img/carnitas.jpg' }],
    },
    {
      provider_id: 'fam-veggie',
      name: 'Veggie taco',
      price_amount: 400,
      price_currency: 'USD',
      dsp_price_amount_overrides: [{ dsp: 'uber', price_amount: 450 }],
      modifier_group_ids: ['grp-salsa'],
      allergens: ['soybeans'],
      use_default_tax_rates: true,
    },
    {
      provider_id: 'fam-bowl',
      name: 'Build your bowl',
      modifier_group_ids: ['grp-protein'],
      tax_ids: ['tax-sales'],
      allergens: ['dairy'],
    },
    {
      provider_id: 'fam-horchata',
      name: 'Horchata',
      description: 'Rice, cinnamon, vanilla.',
      allergens: ['dairy', 'almonds'],
      tax_ids: ['tax-sales'],
    },
    {
      provider_id: 'fam-beer',
      name: 'Mexican lager',
      price_amount: 700,
      price_currency: 'USD',
      is_alcohol: true,
      tax_ids: ['tax-sales', 'tax-alcohol'],
      container_deposit: 10,
    },
    {
      provider_id: 'fam-chilaquiles',
      name: 'Chilaquiles',
      price_amount: 1400,
      price_currency: 'USD',
      modifier_group_ids: ['grp-eggs'],
      allergens: ['eggs', 'dairy'],
      tax_ids: ['tax-sales'],
    },
  ],
  item: [
    {
      provider_id: 'itm-carnitas-1',
      name: 'One taco',
      item_family_id: 'fam-carnitas',
      price_amount: 450,
      price_currency: 'USD',
      sku: 'TAC-1',
    },
    {
      provider_id: 'itm-carnitas-3',
      name: 'Three tacos',
      item_family_id: 'fam-carnitas',
      price_amount: 1200,
      price_currency: 'USD',
      sku: 'TAC-3',
      menu_overrides: [{ menu_id: 'menu-lunch', price_amount: 1100 }],
      dsp_price_amount_overrides: [{ dsp: 'doordash', price_amount: 1300 }],
    },
    {
      provider_id: 'itm-bowl-regular',
      name: 'Regular',
      item_family_id: 'fam-bowl',
      price_amount: 1150,
      price_currency: 'USD',
    },
    {
      provider_id: 'itm-bowl-large',
      name: 'Large',
      item_family_id: 'fam-bowl',
      price_amount: 1450,
      price_currency: 'USD',
      location_overrides: [{ location_id: 'loc-williamsburg', price_amount: 1550 }],
    },
    {
      provider_id: 'itm-horchata-16',
      name: '16 oz',
      item_family_id: 'fam-horchata',
      price_amount: 450,
      price_currency: 'USD',
    },
    {
      provider_id: 'itm-horchata-24',
      name: '24 oz',
      item_family_id: 'fam-horchata',
      price_amount: 600,
      price_currency: 'USD',
      is_active: false,
    },
  ],
  modifier_group: [
    {
      provider_id: 'grp-salsa',
      name: 'Salsa',
      modifier_ids: ['mod-verde', 'mod-roja', 'mod-habanero'],
      rules: {
        selection_type: 'single',
        minimum_unique_modifiers_allowed: 1,
        maximum_unique_modifiers_allowed: 1,
        default_modifier_quantities: [{ modifier_id: 'mod-verde', quantity: 1 }],
      },
    },
    {
      provider_id: 'grp-extras',
      name: 'Extras',
      modifier_ids: ['mod-guac', 'mod-cheese'],
      rules: {
        selection_type: 'multiple',
        minimum_unique_modifiers_allowed: 0,
        maximum_unique_modifiers_allowed: 2,
        amount_of_modifiers_free: 1,
      },
    },
    {
      provider_id: 'grp-protein',
      name: 'Protein',
      modifier_ids: ['mod-chicken', 'mod-steak', 'mod-tofu'],
      rules: {
        selection_type: 'single',
        minimum_unique_modifiers_allowed: 1,
        maximum_unique_modifiers_allowed: 1,
      },
    },
    {
      provider_id: 'grp-steak-doneness',
      name: 'Doneness',
      modifier_ids: ['mod-medium', 'mod-well'],
      rules: {
        selection_type: 'single',
        minimum_unique_modifiers_allowed: 1,
        maximum_unique_modifiers_allowed: 1,
      },
    },
    {
      provider_id: 'grp-char',
      name: 'Char',
      modifier_ids: ['mod-light-char', 'mod-heavy-char'],
    },
    {
      provider_id: 'grp-eggs',
      name: 'Eggs',
      modifier_ids: ['mod-fried', 'mod-scrambled'],
      rules: {
        selection_type: 'single',
        minimum_unique_modifiers_allowed: 1,
        maximum_unique_modifiers_allowed: 1,
      },
    },
  ],
  modifier: [
    { provider_id: 'mod-verde', name: 'Salsa verde', price_amount: 0, price_currency: 'USD' },
    { provider_id: 'mod-roja', name: 'Salsa roja', price_amount: 0, price_currency: 'USD' },
    { provider_id: 'mod-habanero', name: 'Habanero', price_amount: 50, price_currency: 'USD' },
    {
      provider_id: 'mod-guac',
      name: 'Guacamole',
      price_amount: 150,
      price_currency: 'USD',
      dsp_price_amount_overrides: [{ dsp: 'uber', price_amount: 175 }],
    },
    { provider_id: 'mod-cheese', name: 'Cheese', price_amount: 75, price_currency: 'USD' },
    { provider_id: 'mod-chicken', name: 'Chicken', price_amount: 0, price_currency: 'USD' },
    {
      provider_id: 'mod-steak',
      name: 'Steak',
      price_amount: 200,
      price_currency: 'USD',
      modifier_group_ids: ['grp-steak-doneness'],
    },
    { provider_id: 'mod-tofu', name: 'Tofu', price_amount: 0, price_currency: 'USD', is_active: false },
    {
      provider_id: 'mod-medium',
      name: 'Medium',
      price_amount: 0,
      price_currency: 'USD',
      modifier_group_ids: ['grp-char'],
    },
    { provider_id: 'mod-well', name: 'Well done', price_amount: 0, price_currency: 'USD' },
    { provider_id: 'mod-light-char', name: 'Light char', price_amount: 0, price_currency: 'USD' },
    { provider_id: 'mod-heavy-char', name: 'Heavy char', price_amount: 25, price_currency: 'USD' },
    { provider_id: 'mod-fried', name: 'Fried', price_amount: 0, price_currency: 'USD' },
    { provider_id: 'mod-scrambled', name: 'Scrambled', price_amount: 0, price_currency: 'USD' },
  ],
  tax: [
    { provider_id: 'tax-sales', name: 'Sales tax', rate: 8.625, is_inclusive: false, is_default: true },
    { provider_id: 'tax-alcohol', name: 'Alcohol duty (included)', rate: 2.5, is_inclusive: true },
  ],
};
