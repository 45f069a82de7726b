import { randomFillSync } from 'node:crypto';

/**
 * Ids name what they are (`org_…`, `job_…`), like Stripe's, so a support ticket is never ambiguous:
 * the prefix and 12 random bytes in hex. The random bytes are drawn 4 KiB at a time (an order takes
 * half a dozen ids; one system call per id showed in its profile).
 */
const pool = Buffer.alloc(4096);
let used = pool.length;

export function newId(prefix: string): string {
  if (used + 12 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += 12;
  return `${prefix}_${pool.toString('hex', used - 12, used)}`;
}
