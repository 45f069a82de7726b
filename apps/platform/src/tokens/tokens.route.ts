import type { FastifyInstance } from 'fastify';
import {
  createPartnerToken,
  listPartnerTokens,
  renamePartnerToken,
  revokePartnerToken,
} from '@stream/contracts/apis/partner/index';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { createToken, listTokens, renameToken, revokeToken } from './tokens.ts';
import { noStore } from '../http/no-store.ts';

/** GET /tokens, POST /tokens, PUT /tokens/{token_id}, DELETE /tokens/{token_id} */
export function registerTokensRoutes(app: FastifyInstance): void {
  const { db } = app.ctx;
  mount(app, listPartnerTokens, async (req) => {
    const { items, ...page } = await listTokens(db, authOf(req), req.query.org_id, req.query);
    return { tokens: items, ...page };
  });
  mount(app, createPartnerToken, async (req, reply) => {
    noStore(reply.status(201));
    return createToken(db, authOf(req), req.body);
  });
  mount(app, renamePartnerToken, async (req) => ({
    token: await renameToken(db, authOf(req), req.params.token_id, req.body.token_name),
  }));
  mount(app, revokePartnerToken, async (req) => ({
    token: { ...(await revokeToken(db, authOf(req), req.params.token_id)), revoked: true as const },
  }));
}
