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

/** Ids the platform mints: a prefix naming the kind of object, then 24 base32 characters. */
export const ObjectId = z.string().min(1).max(64);

export const Email = z.email().max(254);
/** E.164: a plus, then 8 to 15 digits, the first not zero. */
export const PhoneE164 = z
  .string()
  .regex(/^\+[1-9]\d{7,14}$/, 'must be an E.164 phone number such as +14155550123');
