import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import { EXAMPLE_MENU_FILE, MenuFile } from '../become-a-dsp/menu-file.ts';
import { MenuFailureCode } from '../become-a-pos/menu-events.ts';
import { PageFields, pageQuery, paginated } from './pagination.ts';

/** The newest publications a list without `limit` answers (its cap before it paginated). */
const PUBLICATIONS_PAGE = 100;
import { BEARER_ERRORS, EXAMPLE, Id } from './shared.ts';

/**
 * A location's catalog and menus through the Partner API: the catalog as the platform read it (with
 * every problem), a dry run of the next publication to each bound DSP store, publishing on demand,
 * and the publications so far. Visible to the location's POS and its organisation's white-label
 * partner; 404 to anyone else.
 */

const WHO =
  "The location's POS partner and its organisation's white-label partner may call it; anyone else gets 404 `not_found`.";

export const CatalogProblem = z
  .object({
    severity: z.enum(['error', 'warning']).meta({
      description: '`error`: the object is left out of every menu. `warning`: only the part at fault is.',
    }),
    kind: z.string().meta({ description: 'The kind of object (`item_family`, ...), or `catalog`.' }),
    id: z.string().nullable().meta({ description: 'Its `provider_id`, when it has one.' }),
    field: z.string().nullable(),
    message: z.string().meta({ description: 'What is wrong, and what to fix.' }),
  })
  .meta({ id: 'CatalogProblem' });

export const CatalogVersion = z
  .object({
    location_id: z.string(),
    version: z.number().int().meta({ description: 'Goes up by one each time the pulled catalog changes.' }),
    fetched_at: z.iso.datetime().meta({ description: 'When the platform last pulled it.' }),
    counts: z.record(z.string(), z.number().int()).meta({ description: 'Objects kept, by kind.' }),
    problems: z.array(CatalogProblem),
  })
  .meta({ id: 'CatalogVersion', description: "The location's catalog as the platform last read it." });

export const MenuRejection = z
  .object({
    code: MenuFailureCode,
    reason: z.string(),
    objects: z
      .array(z.object({ kind: z.string(), id: z.string() }))
      .meta({ description: 'The objects at fault.' }),
  })
  .meta({ id: 'MenuRejection' });

export const MenuDiff = z
  .object({
    added: z.array(z.object({ kind: z.string(), stream_id: z.string(), name: z.string() })),
    removed: z.array(z.object({ kind: z.string(), stream_id: z.string(), name: z.string() })),
    changed: z.array(
      z.object({ kind: z.string(), stream_id: z.string(), name: z.string(), fields: z.array(z.string()) }),
    ),
  })
  .meta({
    id: 'MenuDiff',
    description: 'What the file changes against the last one published to the store.',
  });

export const MenuDryRun = z
  .object({
    binding_id: z.string(),
    dsp: z.string().meta({ description: 'The DSP (its slug).' }),
    dsp_store_id: z.string(),
    form: z.enum(['v1', 'v2']),
    would_publish: z.boolean().meta({ description: 'True when no rejection stops it.' }),
    rejections: z.array(MenuRejection),
    diff: MenuDiff.nullable().meta({ description: 'Null when nothing was published to the store yet.' }),
    menu_file: MenuFile,
  })
  .meta({ id: 'MenuDryRun' });

export const MenuPublication = z
  .object({
    _id: z.string().meta({ description: 'The publication (`mpub_…`): the `menu_id` of the POS events.' }),
    binding_id: z.string(),
    dsp_store_id: z.string(),
    form: z.enum(['v1', 'v2']),
    status: z.enum(['publishing', 'published', 'failed']),
    failure_code: MenuFailureCode.nullable(),
    failure_reason: z.string().nullable(),
    cause: z.string().meta({
      description:
        '`binding`, `catalog.updated`, `object.updated` (an object update named an object no published menu held, and the catalog pulled for it changed), `partner` or `operator`; for a failure that is no publish attempt, `object.updated` (an object update the store could not take) `connection` (the DSP refused the binding), or the cause of a catalog pull given up after its hour of retries (`MENU_FAILURE_UNKNOWN`).',
    }),
    catalog_version: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The catalog version the file was built from; null when no file was built.' }),
    created_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'MenuPublication' });

const params = z.object({ location_id: Id.meta({ description: 'The org location (`loc_…`).' }) });
const common = {
  api: 'partner',
  tags: ['Menus'],
  security: { kind: 'bearer', scopes: [] },
  servedBy: 'platform',
} as const;
const errors = ['validation_failed', ...BEARER_ERRORS, 'not_found'] as const;
const location = 'loc_2b4d6f8a0c2e4a6c8e0a2c4e';

export const getLocationCatalog = defineOperation({
  ...common,
  operationId: 'getLocationCatalog',
  method: 'GET',
  path: '/menus/locations/{location_id}/catalog',
  summary: "Get a location's catalog and its problems",
  description: `The catalog as the platform last pulled it from the POS (\`GET /stream-pos/v1/catalog\`), with every problem
found in it: each names the object (kind and \`provider_id\`), the field and what to fix. 404 \`not_found\` before the first
pull. ${WHO}`,
  tagDescriptions: { Menus: 'Catalogs, menu files, dry runs and publications to DSP stores.' },
  request: { params, example: { location_id: location } },
  responses: {
    200: {
      description: 'The catalog.',
      schema: z.object({ catalog: CatalogVersion }),
      example: {
        catalog: {
          location_id: location,
          version: 3,
          fetched_at: EXAMPLE.createdAt,
          counts: { category: 4, item_family: 6, item: 6, modifier_group: 6, modifier: 14, menu: 3, tax: 2 },
          problems: [
            {
              severity: 'warning',
              kind: 'item_family',
              id: 'fam-carnitas',
              field: 'provider_id',
              message:
                'A second item_family fam-carnitas is dropped (the first one listed is kept): provider_ids are unique per kind, so give each its own.',
            },
          ],
        },
      },
    },
  },
  errors,
});

export const dryRunMenus = defineOperation({
  ...common,
  operationId: 'dryRunMenus',
  method: 'POST',
  path: '/menus/locations/{location_id}/dry-run',
  summary: 'Dry-run the next menu publication',
  description: `Pulls the catalog from the POS now and answers, for every DSP store bound to the location, without publishing
anything: the menu file that would be sent, its diff against the last file published to the store, and every rejection
the platform can find before calling the DSP (each with its code, reason and the objects at fault). ${WHO}`,
  request: { params, example: { location_id: location } },
  responses: {
    200: {
      description: 'One dry run per bound store.',
      schema: z.object({ catalog: CatalogVersion, stores: z.array(MenuDryRun) }),
      example: {
        catalog: {
          location_id: location,
          version: 4,
          fetched_at: EXAMPLE.createdAt,
          counts: { item: 2, menu: 1 },
          problems: [],
        },
        stores: [
          {
            binding_id: 'bnd_6a8c0e2a4c6e8a0c2e4a6c8e',
            dsp: 'doordash',
            dsp_store_id: 'store-1002',
            form: 'v1',
            would_publish: true,
            rejections: [],
            diff: {
              added: [],
              removed: [],
              changed: [
                {
                  kind: 'item',
                  stream_id: 'itm_EuytU8tGko4vYLC2m7dIOb',
                  name: 'One taco',
                  fields: ['price'],
                },
              ],
            },
            menu_file: EXAMPLE_MENU_FILE,
          },
        ],
      },
    },
  },
  errors: [...errors, 'partner_unreachable', 'integration_not_active', 'integration_needs_reconnection'],
});

export const publishMenus = defineOperation({
  ...common,
  operationId: 'publishMenus',
  method: 'POST',
  path: '/menus/locations/{location_id}/publish',
  summary: 'Publish the menus now',
  description: `Pulls the catalog and publishes the menu to every DSP store bound to the location, through the outbox: the
answer is immediate, the outcome is in \`GET /menus/locations/{location_id}/publications\` and reaches the POS as
\`menu.publish_success\` or \`menu.publish_failure\`. Publishing twice in a row publishes once more at most. ${WHO}`,
  request: { params, example: { location_id: location } },
  responses: {
    202: {
      description: 'Queued.',
      schema: z.object({ queued: z.literal(true) }),
      example: { queued: true },
    },
  },
  errors,
});

export const listMenuPublications = defineOperation({
  ...common,
  operationId: 'listMenuPublications',
  method: 'GET',
  path: '/menus/locations/{location_id}/publications',
  summary: "List a location's menu publications",
  description: `The publications to the location's DSP stores. ${WHO} ${paginated('newest first (publications made during a walk are on its first page, not behind it)', PUBLICATIONS_PAGE)}`,
  request: { params, query: z.object(pageQuery(PUBLICATIONS_PAGE)), example: { location_id: location } },
  responses: {
    200: {
      description: 'The publications.',
      schema: z.object({ publications: z.array(MenuPublication), ...PageFields }),
      example: {
        publications: [
          {
            _id: 'mpub_3c5e7a9c1e3a5c7e9a1c3e5a',
            binding_id: 'bnd_6a8c0e2a4c6e8a0c2e4a6c8e',
            dsp_store_id: 'store-1002',
            form: 'v1',
            status: 'published',
            failure_code: null,
            failure_reason: null,
            cause: 'binding',
            catalog_version: 3,
            created_at: EXAMPLE.createdAt,
            finished_at: EXAMPLE.createdAt,
          },
        ],
        has_more: false,
        next_cursor: null,
      },
    },
  },
  errors: [...errors, 'invalid_cursor'],
});

export const MENU_OPERATIONS = [getLocationCatalog, dryRunMenus, publishMenus, listMenuPublications];
