import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { PricePlatform } from '@stream/contracts/apis/become-a-pos/catalog';
import type { DbOrTx } from '../db/client.ts';
import { orgLocations, partners } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { findPartner } from '../partners/service.ts';
import { MENU_LIMITS } from './build.ts';
import { planPublish } from './publish.ts';

/**
 * How a DSP takes its menus, kept in its partner `settings` and set by an operator
 * (`stream-platform partners menu-settings`): the v2 flag, the deepest modifier nesting it accepts,
 * and which platform's price overrides apply to it (default: its slug, when it is one).
 */
export const MenuSettings = z
  .object({
    menu_form: z.enum(['v1', 'v2']),
    max_modifier_depth: z.number().int().min(1).max(10),
    price_platform: PricePlatform.nullable(),
  })
  .partial()
  .strict();
export type MenuSettings = z.infer<typeof MenuSettings>;

export async function setMenuSettings(
  db: DbOrTx,
  ref: string,
  patch: MenuSettings,
): Promise<{ slug: string } & Required<MenuSettings>> {
  const partner = await findPartner(db, ref);
  if (!partner) throw new ApiError('unknown_partner', `No partner "${ref}".`);
  if (partner.kind !== 'dsp')
    throw new ApiError(
      'validation_failed',
      `${partner.slug} is a ${partner.kind} partner: menu settings are a DSP's.`,
    );
  const settings = { ...(partner.settings ?? {}), ...patch };
  await db.update(partners).set({ settings }).where(eq(partners.id, partner.id));
  const s = settings as MenuSettings;
  return {
    slug: partner.slug,
    menu_form: s.menu_form ?? 'v1',
    max_modifier_depth: s.max_modifier_depth ?? MENU_LIMITS.maxModifierDepth,
    price_platform: s.price_platform ?? null,
  };
}

/** An operator's publish of a location's menus (`stream-platform menus publish`). */
export async function publishForOperator(db: DbOrTx, locationId: string): Promise<{ queued: true }> {
  const [location] = await db
    .select({ id: orgLocations.id })
    .from(orgLocations)
    .where(eq(orgLocations.id, locationId));
  if (!location) throw new ApiError('not_found', `No org location ${locationId}.`);
  await planPublish(db, { location_id: location.id, cause: 'operator' });
  return { queued: true };
}
