import type { FastifyInstance } from 'fastify';
import { requestToken } from '@stream/contracts/apis/partner/index';
import { mount } from '../http/route.ts';
import { exchangeToken } from '../auth/grants.ts';
import { clientCredentials } from './client-credentials.ts';
import { noStore } from '../http/no-store.ts';

/** POST /oauth/token */
export function registerOAuthTokenRoute(app: FastifyInstance): void {
  mount(app, requestToken, async (req, reply) => {
    const credentials = clientCredentials(req.headers.authorization, req.body);
    const tokens = await exchangeToken(app.ctx, { ...req.body, ...credentials });
    // RFC 6749 section 5.1: responses carrying tokens must not be cached.
    noStore(reply.status(201));
    return tokens;
  });
}
