import { randomBytes } from 'node:crypto';

/** Ids name what they are (`org_…`, `job_…`), like Stripe's, so a support ticket is never ambiguous. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
