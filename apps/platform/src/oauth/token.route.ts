import type { FastifyInstance } from 'fastify';
import { requestToken } from '@stream/contracts/apis/partner/index';
import { ApiError } from '../http/errors.ts';
import { mount } from '../http/route.ts';
import { exchangeToken } from '../auth/grants.ts';
import { clientCredentials, usesBasic } from './client-credentials.ts';
import { noStore } from '../http/no-store.ts';

/** POST /oauth/token */
export function registerOAuthTokenRoute(app: FastifyInstance): void {
  mount(app, requestToken, async (req, reply) => {
    let tokens;
    try {
      const credentials = clientCredentials(req.headers.authorization, req.body);
      tokens = await exchangeToken(app.ctx, { ...req.body, ...credentials });
    } catch (err) {
      // RFC 6749 section 5.2: a client refused after trying HTTP Basic gets its challenge.
      if (err instanceof ApiError && err.code === 'invalid_client' && usesBasic(req.headers.authorization))
        reply.header('www-authenticate', 'Basic realm="stream", charset="UTF-8"');
      throw err;
    }
    // RFC 6749 section 5.1: responses carrying tokens must not be cached.
    noStore(reply.status(201));
    return tokens;
  });
}
