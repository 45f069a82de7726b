import type { FastifyInstance } from 'fastify';
import { getGatewayCredentials } from '@stream/contracts/apis/hr-stores/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { decrypt } from '../../http/secrets.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer, plural } from '../answer.ts';

/** GET /Stores/{id}/GatewayCredentials: the account tokens opened only for a partner granted the company. */
export function registerGatewayCredentialsRoute(app: FastifyInstance): void {
  mount(app, getGatewayCredentials, async (req) => {
    const store = await findGrantedStore(app.ctx.db, authOf(req), req.params.id);
    const key = app.ctx.config.encryptionKey;
    const credentials = store.gatewayCredentials.map((c) => ({
      ...c,
      accountToken: decrypt(key, c.accountToken),
    }));
    return hostedAnswer(credentials, `${plural(credentials.length, 'credential')}.`);
  });
}
