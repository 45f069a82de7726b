import { z } from 'zod';
import type { ErrorCode } from '../../errors.ts';
import { integerParam } from '../../hosted.ts';

/**
 * Cursor pagination of every Partner API list, in the style of Stripe: `limit` and `starting_after`
 * in the query; beside the list's own array field (whose name and shape the spec fixes, so it
 * stays) the answer adds `has_more` and `next_cursor`. The platform's side is
 * `apps/platform/src/http/pagination.ts`; the guide is "Pagination" in become-a-white-label-partner.
 */

export const PAGE_LIMIT_MAX = 1000;

const LIMIT_RANGE = `must be a whole number from 1 to ${PAGE_LIMIT_MAX}`;

/**
 * The query parameters of a paginated list, spread into its query object. Paging is opt-in: without
 * `limit` a list answers what it answered before it paginated (every item, as the spec shows these
 * lists, or `defaultLimit` items for a list that always had that cap), so a partner written from the
 * spec never silently gets a partial list.
 */
export const pageQuery = (defaultLimit?: number) => {
  const limit = z
    .number()
    .int()
    .min(1, LIMIT_RANGE)
    .max(PAGE_LIMIT_MAX, LIMIT_RANGE)
    .meta({
      description: `How many items to answer, 1 to ${PAGE_LIMIT_MAX}; without it, ${defaultLimit === undefined ? 'every item (one page, `has_more` false)' : `the first ${defaultLimit}`}.`,
    });
  return {
    limit:
      defaultLimit === undefined
        ? integerParam(limit, undefined, LIMIT_RANGE).optional()
        : integerParam(limit, defaultLimit, LIMIT_RANGE),
    // Checked by the platform, not here: every unusable cursor is one code, `invalid_cursor`.
    starting_after: z.string().optional().meta({
      description:
        'The `next_cursor` of the previous page, to get the page after it; leave it out for the first page. Opaque: pass it back as it came.',
    }),
  };
};

/** The fields a paginated answer adds beside its list. */
export const PageFields = {
  has_more: z.boolean().meta({ description: 'True when more items follow this page.' }),
  next_cursor: z.string().nullable().meta({
    description: 'Pass it as `starting_after` for the next page; null on the last page.',
  }),
};

/** The errors paginating adds to a list's own (a bad `limit` is `validation_failed`). */
export const PAGE_ERRORS = ['validation_failed', 'invalid_cursor'] as const satisfies readonly ErrorCode[];

/** The sentence every paginated operation's description ends with; `order` says how its items are sorted. */
export const paginated = (order: string, defaultLimit?: number) =>
  `Paginated (see Pagination in the guide Become a white-label partner), ${order}: with \`limit\` (at most ${PAGE_LIMIT_MAX}) at most that many items, ` +
  `without it ${defaultLimit === undefined ? 'every item' : `at most ${defaultLimit}`}; ` +
  'while `has_more` is true, ask again with `starting_after` set to `next_cursor`. Items added during a walk never make it skip or repeat one.';
