import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HostedMessage } from '@stream/contracts/envelopes';
import { authOf } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { answerOnce, type Answer } from '../http/idempotency-keys.ts';
import { transaction } from '../jobs/outbox.ts';

/** A hosted API's success answer: `{data, message, messagesDetails}`. */
export function hostedAnswer<T>(data: T, message: string, messagesDetails: HostedMessage[] = []) {
  return { data, message, messagesDetails };
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Answers a call that creates something: `work` runs in one transaction with the request's
 * `Idempotency-Key` claimed first, so a retry with the key is sent the first answer (with
 * `Idempotent-Replayed: true`) and creates nothing. `request` is what the call asks for (store,
 * body), compared when a key comes back.
 */
export async function sendOnce(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  request: unknown,
  work: (tx: Tx) => Promise<Answer>,
): Promise<FastifyReply> {
  const keyed = {
    partnerId: authOf(req).partnerId,
    key: (req.headers as { 'idempotency-key'?: string })['idempotency-key'],
    operation: `${req.method} ${req.routeOptions.url}`,
    request,
  };
  const answer = await transaction(ctx, (tx) => answerOnce(tx, keyed, () => work(tx)));
  if (answer.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(answer.status).send(answer.body);
}
