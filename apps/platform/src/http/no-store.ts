import type { FastifyReply } from 'fastify';

/** An answer carrying a credential (RFC 6749 section 5.1): cached nowhere, by the client or in between. */
export const noStore = (reply: FastifyReply): FastifyReply =>
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
