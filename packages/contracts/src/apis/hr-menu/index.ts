import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import { HOSTED_BODY_ERRORS, HOSTED_ERRORS, ServiceType, StoreHeaders, hostedAnswer } from '../../hosted.ts';
import { AvailableDiscount, Menu, MenuInput, OutOfStockItem } from './menu.ts';
import { DEMO_MENU, DEMO_STORE_ID } from './demo.ts';

/** The Menu API (restaurant-apis.md section 7): a store's menus, their discounts and what is out of stock. */

const common = {
  api: 'hr-menu',
  servedBy: 'platform',
  security: { kind: 'bearer', scopes: ['menu'] },
  tags: ['Menus'],
  externalDocs: { url: '/docs/restaurant-apis/menu-api', description: 'Menu API guide' },
} as const;

const STORE = `Name the store in \`X-Store\`; a store of a company not granted to you is 404 \`not_found\`.`;
const headers = StoreHeaders;
const menuName = z.object({
  menuName: z
    .string()
    .min(1)
    .max(100)
    .meta({ description: "The menu's `displayName`, matched exactly, case included." }),
});
const serviceTypeQuery = z.object({
  serviceType: ServiceType.optional().meta({
    description: 'Only menus serving this service type (and the `None` default menus); absent: every menu.',
  }),
});

/** The demo store's menu as the API answers it (every default filled in), and after patchMenu's example. */
const exampleMenu = Menu.parse({ id: 1, ...DEMO_MENU });
const patchedMenu = structuredClone(exampleMenu);
patchedMenu.groups[1]!.items[0]!.isAvailable = false;
patchedMenu.groups[0]!.items[0]!.priceInfo.price = 1850;
const ok = (message: string, data: unknown) => ({ data, message, messagesDetails: [] });

export const getMenu = defineOperation({
  ...common,
  operationId: 'getMenu',
  method: 'GET',
  path: '/Menus/{menuName}',
  summary: 'Get a menu by name',
  description: `The store's menu of that \`displayName\`: groups, items with their nested modifier categories, tax types, order
types, delivery options and discounts. ${STORE}`,
  tagDescriptions: { Menus: "A store's menus, discounts and out-of-stock items." },
  request: { headers, params: menuName, example: { 'x-store': String(DEMO_STORE_ID), menuName: 'Main' } },
  responses: {
    200: {
      description: 'The menu.',
      schema: hostedAnswer(Menu),
      example: ok('Menu Main of store 1001.', exampleMenu),
    },
  },
  errors: HOSTED_ERRORS,
});

/** An RFC 6901 JSON Pointer: `""` or `/`-separated segments, where `~` is written `~0` and `/` is `~1`. */
const JsonPointer = z
  .string()
  .max(500)
  .regex(
    /^(\/([^~/]|~[01])*)*$/,
    'must be a JSON Pointer such as /groups/0/items/1 (write ~ as ~0 and / as ~1)',
  );

const JsonPatchOperation = z
  .object({
    op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
    path: JsonPointer.meta({
      description: 'A JSON Pointer into the menu (`/groups/0/items/1/isAvailable`).',
    }),
    value: z.unknown().optional().meta({
      description:
        "What `add`, `replace` and `test` write or compare: the menu's own field names, exactly (a field it does not have is 400 `invalid_patch`).",
    }),
    from: JsonPointer.optional(),
  })
  .meta({ id: 'JsonPatchOperation', description: 'One RFC 6902 operation.' });
export const JsonPatch = z
  .array(JsonPatchOperation)
  .min(1, 'must hold at least one operation')
  .max(500)
  .meta({ id: 'JsonPatch', description: 'An RFC 6902 JSON Patch document.' });

export const patchMenu = defineOperation({
  ...common,
  operationId: 'patchMenu',
  method: 'PATCH',
  path: '/Menus/{menuName}',
  summary: 'Change a menu with a JSON Patch',
  description: `Applies an RFC 6902 JSON Patch (\`application/json-patch+json\` or \`application/json\`) to the menu, all or
nothing: the patched menu is checked as a whole, as a new one would be, and stored only when it passes. Marking an item
out of stock is \`[{"op": "replace", "path": "/groups/0/items/1/isAvailable", "value": false}]\`.

- 400 \`invalid_patch\`: a malformed operation, a path the menu does not have, or a value holding a field the menu does
  not have (matched exactly, case included), each named in \`messagesDetails\` as \`body[1].value.modifiers[0].descripton\`.
- 405 \`patch_not_allowed\`: the patch changes an \`id\` (the menu's or any object's: orders and discounts refer to them),
  by an operation on an \`id\` or by writing over an object with one of another id (\`replace /groups/0/items/1\` must
  carry the item's own \`id\`); adding objects to a list and removing them are taken.
- 409 \`patch_test_failed\`: a \`test\` operation did not match.
- 422 \`menu_invalid\`: the patched menu breaks a rule; each problem is in \`messagesDetails\`.

${STORE}`,
  request: {
    headers,
    params: menuName,
    body: JsonPatch,
    bodyContentTypes: ['application/json-patch+json'],
    example: [
      { op: 'test', path: '/groups/1/items/0/id', value: 'garlic-knots' },
      { op: 'replace', path: '/groups/1/items/0/isAvailable', value: false },
      { op: 'replace', path: '/groups/0/items/0/priceInfo/price', value: 1850 },
    ],
  },
  responses: {
    200: {
      description: 'The patched menu.',
      schema: hostedAnswer(Menu),
      example: ok('Menu Main patched: 3 operations applied.', patchedMenu),
    },
  },
  errors: [...HOSTED_BODY_ERRORS, 'invalid_patch', 'patch_not_allowed', 'patch_test_failed', 'menu_invalid'],
});

export const listMenus = defineOperation({
  ...common,
  operationId: 'listMenus',
  method: 'GET',
  path: '/Menus',
  summary: "List a store's menus",
  description: `Every menu of the store, or with \`serviceType\` the menus serving it (a menu listing \`None\` serves every
service type). ${STORE}`,
  request: {
    headers,
    query: serviceTypeQuery,
    example: { 'x-store': String(DEMO_STORE_ID), serviceType: 'DoorDash' },
  },
  responses: {
    200: {
      description: 'The menus.',
      schema: hostedAnswer(z.array(Menu)),
      example: ok('1 menu.', [exampleMenu]),
    },
  },
  errors: HOSTED_ERRORS,
});

/** A menu the demo store does not have yet (its `Main` would be 409), for Google Ordering only. */
const cateringMenu = { ...DEMO_MENU, displayName: 'Catering', serviceTypes: ['GoogleOrdering'] } as const;

export const createMenu = defineOperation({
  ...common,
  operationId: 'createMenu',
  method: 'POST',
  path: '/Menus',
  summary: 'Create a menu',
  description: `Creates a menu in the store. Every rule of the Menu API is checked: \`displayName\` required, at most
\`maxModifierLevels\` (at most 4) levels of modifier categories, prices and credits whole cents of at least 0, modifier
quantities (minimum 0 to 1, maximum 1 to 100), tax rates and percent fees 0 to 100, HH:mm periods, discount requirement counts
1 up to what is listed, and every id a discount, tax or order-type price refers to exists. A field alone is 400
\`validation_failed\`; a rule across fields is 422 \`menu_invalid\`; each problem is one entry of \`messagesDetails\`. A menu
of that name already in the store is 409 \`menu_exists\` (change it with PATCH). ${STORE}`,
  request: {
    headers,
    body: z.object({ data: MenuInput }),
    nullIsAbsent: true,
    example: { data: cateringMenu },
  },
  responses: {
    201: {
      description: 'The menu, with its id.',
      schema: hostedAnswer(Menu),
      example: ok('Menu Catering created.', Menu.parse({ id: 3, ...cateringMenu })),
    },
  },
  errors: [...HOSTED_BODY_ERRORS, 'menu_exists', 'menu_invalid'],
});

export const MenuDiscount = AvailableDiscount.extend({
  menuName: z.string().meta({ description: 'The menu offering it.' }),
}).meta({ id: 'MenuDiscount' });

export const listMenuDiscounts = defineOperation({
  ...common,
  operationId: 'listMenuDiscounts',
  method: 'GET',
  path: '/MenuDiscounts',
  summary: 'List discounts by service type',
  description: `The \`availableDiscounts\` of the store's menus serving the service type (every menu without it), each with the
menu offering it. ${STORE}`,
  request: {
    headers,
    query: serviceTypeQuery,
    example: { 'x-store': String(DEMO_STORE_ID), serviceType: 'UberEats' },
  },
  responses: {
    200: {
      description: 'The discounts.',
      schema: hostedAnswer(z.array(MenuDiscount)),
      example: ok(
        '4 discounts.',
        exampleMenu.availableDiscounts.map((d) => ({ ...d, menuName: 'Main' })),
      ),
    },
  },
  errors: HOSTED_ERRORS,
});

/** What both out-of-stock lists answer (the demo's, after patchMenu's example marked garlic knots out). */
const outOfStockAnswer = {
  responses: {
    200: {
      description: 'What is out of stock.',
      schema: hostedAnswer(z.array(OutOfStockItem)),
      example: ok('2 out of stock.', [
        { stockItemId: 'gluten-free', stockItemType: 'modifier' },
        { stockItemId: 'garlic-knots', stockItemType: 'item' },
      ]),
    },
  },
  errors: HOSTED_ERRORS,
} as const;

export const getMenuOutOfStock = defineOperation({
  ...common,
  operationId: 'getMenuOutOfStock',
  method: 'GET',
  path: '/Menus/{menuName}/OutOfStock',
  summary: "List a menu's out-of-stock items",
  description: `Items and modifiers of the menu whose \`isAvailable\` is false, by \`stockItemId\` (their \`id\` when they have
none), each once. Put one back with PATCH (\`isAvailable: true\`). ${STORE}`,
  request: { headers, params: menuName, example: { 'x-store': String(DEMO_STORE_ID), menuName: 'Main' } },
  ...outOfStockAnswer,
});

export const listOutOfStock = defineOperation({
  ...common,
  operationId: 'listOutOfStock',
  method: 'GET',
  path: '/OutOfStock',
  summary: "List a store's out-of-stock items",
  description: `What is out of stock across the store's menus serving the service type (every menu without it), each
\`stockItemId\` once. ${STORE}`,
  request: {
    headers,
    query: serviceTypeQuery,
    example: { 'x-store': String(DEMO_STORE_ID), serviceType: 'GrubHub' },
  },
  ...outOfStockAnswer,
});

export const HR_MENU_OPERATIONS = [
  getMenu,
  patchMenu,
  listMenus,
  createMenu,
  listMenuDiscounts,
  getMenuOutOfStock,
  listOutOfStock,
];
