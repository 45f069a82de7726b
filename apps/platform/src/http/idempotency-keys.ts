import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { ApiError } from './errors.ts';
import { msInterval, rowsOf } from '../db/sql.ts';
import type { Db, Tx } from '../db/client.ts';
import { idempotencyKeys } from '../db/schema/index.ts';

/** How long a key's answer is kept and replayed (Stripe's 24 hours); after that the key is new again. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

export interface Answer {
  status: number;
  body: unknown;
}

export interface KeyedRequest {
  partnerId: string;
  /** The `Idempotency-Key` header; without one the request simply runs. */
  key: string | undefined;
  /** The contract operation, so a key reused on another endpoint is refused. */
  operation: string;
  /** What the request asks for (parsed body, store, path parameters); its hash is compared on reuse. */
  request: unknown;
}

/**
 * Runs `run` at most once per partner and `Idempotency-Key`, inside the caller's transaction `tx`
 * (the one that does the work), and answers what the first request was answered.
 *
 * The key's row is inserted first in `tx`: a second request with the key waits on that row's lock
 * until the first commits (then it replays the stored answer) or rolls back (then it runs itself).
 * So there is no "in progress" state to expire, and a crash can never leave work done without its
 * answer stored. Only answers `run` returns are stored; an error it throws rolls the work back, so
 * a retry runs again. A key reused with another request (body, store, endpoint) is 422
 * `idempotency_key_reused`.
 */
export async function answerOnce(
  tx: Tx,
  req: KeyedRequest,
  run: () => Promise<Answer>,
): Promise<Answer & { replayed: boolean }> {
  if (req.key === undefined) return { ...(await run()), replayed: false };
  const fingerprint = createHash('sha256').update(JSON.stringify(req.request)).digest('base64url');
  const claimed = await tx.execute(sql`
    insert into idempotency_keys (partner_id, key, operation, fingerprint)
    values (${req.partnerId}, ${req.key}, ${req.operation}, ${fingerprint})
    on conflict (partner_id, key) do update
      set operation = excluded.operation, fingerprint = excluded.fingerprint,
          status = null, body = null, created_at = now()
      where idempotency_keys.created_at < now() - ${msInterval(IDEMPOTENCY_KEY_TTL_MS)}
    returning 1`);
  const where = and(eq(idempotencyKeys.partnerId, req.partnerId), eq(idempotencyKeys.key, req.key));
  if (rowsOf(claimed).length === 0) {
    const [first] = await tx.select().from(idempotencyKeys).where(where);
    if (first!.operation !== req.operation || first!.fingerprint !== fingerprint) {
      throw new ApiError(
        'idempotency_key_reused',
        `Idempotency-Key ${JSON.stringify(req.key)} was used in the last 24 hours for ${first!.operation === req.operation ? 'a request with other parameters' : `another endpoint (${first!.operation})`}; send a new key with a new request, and this key only to retry that one.`,
      );
    }
    return { status: first!.status!, body: first!.body, replayed: true };
  }
  const answer = await run();
  await tx.update(idempotencyKeys).set({ status: answer.status, body: answer.body }).where(where);
  return { ...answer, replayed: false };
}

/** Deletes the keys past their 24 hours (the pruner's round); answers how many went. */
export async function pruneIdempotencyKeys(db: Db): Promise<number> {
  const result = await db.execute(sql`
    with gone as (
      delete from idempotency_keys where created_at < now() - ${msInterval(IDEMPOTENCY_KEY_TTL_MS)}
      returning 1
    )
    select count(*)::int as n from gone`);
  return rowsOf<{ n: number }>(result)[0]?.n ?? 0;
}
