import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { dspOAuth } from '@stream/contracts/apis/become-a-dsp/index';
import type { posOAuth } from '@stream/contracts/apis/become-a-pos/index';
import { authorizePage } from './authorize-page.ts';
import { SandboxError, parse, route } from './http.ts';
import type { Sim } from './sim.ts';
import type { TokenClaims } from './tokens.ts';

/** A side's merchant OAuth (`posOAuth`, `dspOAuth`) and the title of its login page. */
export type SimulatedOAuth = (typeof posOAuth | typeof dspOAuth) & { title: string };

/** The token request fields of both POS and DSP (the DSP's has no redirect_uri). */
interface TokenRequest {
  client_id: string;
  client_secret: string;
  grant_type: 'authorization_code' | 'refresh_token';
  code?: string;
  refresh_token?: string;
  redirect_uri?: string;
}

const safeEqual = (a: string, b: string) => {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
};

/** The authorize page and token endpoint of a simulated POS or DSP. */
export function registerMerchantOAuth(app: FastifyInstance, sim: Sim, flow: SimulatedOAuth): void {
  route(app, flow.authorize, (req, reply) => authorize(sim, flow, req, reply));
  route(app, flow.token, async (req, reply) => {
    const body = parse(flow.token, req).body as TokenRequest;
    const client = sim.opts.clients.find(
      (c) => c.client_id === body.client_id && safeEqual(c.client_secret, body.client_secret),
    );
    if (!client) throw new SandboxError('invalid_client', 'Unknown client_id or wrong client_secret.');
    const claims =
      body.grant_type === 'authorization_code' ? redeemCode(sim, body) : redeemRefresh(sim, body);
    const account = sim.account(claims.account);
    if (!account)
      throw new SandboxError('grant_rejected', `The account "${claims.account}" no longer exists.`);
    const fields = { account: account.id, client: client.client_id };
    const access = sim.signer.issue('access', { ...fields, ttlMs: sim.opts.accessTokenTtlMs });
    // A partner that does not rotate answers a refresh without a refresh token (RFC 6749 section 6).
    const rotate = body.grant_type === 'authorization_code' || !sim.state.switches.keep_refresh_token;
    const refresh = rotate && sim.signer.issue('refresh', { ...fields, ttlMs: sim.opts.refreshTokenTtlMs });
    sim.note(req, 'account', account.id);
    return reply.status(flow.tokenStatus).send({
      access_token: access.token,
      ...(refresh ? { refresh_token: refresh.token, refresh_token_expire_time: refresh.claims.exp } : {}),
      expire_time: access.claims.exp,
      id: account.id,
      ...(flow.ssoDetails ? { sso_details: account.sso_details } : {}),
    });
  });
}

/**
 * Browsers (Accept: text/html) see the login page, which approves by itself; any other client
 * (a test's fetch with `redirect: 'manual'`) gets the 302 straight away. `auto=1` forces the
 * redirect, `auto=0` the page; `account=<id>` logs in as another account, `deny=1` declines.
 */
async function authorize(sim: Sim, flow: SimulatedOAuth, req: FastifyRequest, reply: FastifyReply) {
  const { query } = parse(flow.authorize, req);
  const extra = req.query as Record<string, unknown>;
  const flag = (name: string) => (typeof extra[name] === 'string' ? (extra[name] as string) : undefined);
  if (!sim.opts.clients.some((c) => c.client_id === query.client_id)) {
    throw new SandboxError('invalid_client', `This sandbox issued no client "${query.client_id}".`);
  }
  const accountId = flag('account') ?? sim.opts.accounts[0]?.id ?? '';
  const account = sim.account(accountId);
  if (!account) {
    throw new SandboxError('validation_failed', `No sandbox account "${accountId}".`, [
      { path: 'query.account', message: `one of ${sim.opts.accounts.map((a) => a.id).join(', ')}` },
    ]);
  }
  const back = new URL(query.redirect_uri);
  const withState = () => {
    if (query.state !== undefined) back.searchParams.set('state', query.state);
    return reply.redirect(back.toString(), 302);
  };
  if (flag('deny') === '1' || sim.state.switches.deny_authorize) {
    back.searchParams.set('error', 'access_denied');
    return withState();
  }
  const wantsPage =
    flag('auto') === '0' || (flag('auto') !== '1' && /text\/html/.test(req.headers.accept ?? ''));
  if (wantsPage && flag('approve') !== '1') {
    const shown = Object.fromEntries(
      Object.entries(extra).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    return reply.type('text/html; charset=utf-8').send(
      authorizePage({
        title: flow.title,
        clientId: query.client_id,
        query: shown,
        accounts: sim.opts.accounts,
        selected: account.id,
      }),
    );
  }
  const code = sim.signer.issue('code', {
    account: account.id,
    client: query.client_id,
    ttlMs: sim.opts.codeTtlMs,
    redirect_uri: query.redirect_uri,
  });
  sim.note(req, 'account', account.id);
  back.searchParams.set('code', code.token);
  return withState();
}

function redeemCode(sim: Sim, body: TokenRequest): TokenClaims {
  const check = sim.signer.verify('code', body.code ?? '');
  if (!check.ok) throw new SandboxError('grant_rejected', `The authorization code is ${check.reason}.`);
  const { claims } = check;
  if (claims.client !== body.client_id)
    throw new SandboxError('grant_rejected', 'The code was issued to another client.');
  if (body.redirect_uri !== undefined && body.redirect_uri !== claims.redirect_uri) {
    throw new SandboxError('grant_rejected', 'redirect_uri differs from the one of the authorize request.');
  }
  if (!sim.state.redeemCode(claims.nonce, claims.exp)) {
    throw new SandboxError('grant_rejected', 'The authorization code was already used.');
  }
  return claims;
}

function redeemRefresh(sim: Sim, body: TokenRequest): TokenClaims {
  if (sim.state.switches.fail_refresh) {
    throw new SandboxError(
      'grant_rejected',
      'The refresh token was rejected (the sandbox fail_refresh switch is on).',
    );
  }
  const check = sim.signer.verify('refresh', body.refresh_token ?? '');
  if (!check.ok) throw new SandboxError('grant_rejected', `The refresh token is ${check.reason}.`);
  if (check.claims.client !== body.client_id) {
    throw new SandboxError('grant_rejected', 'The refresh token was issued to another client.');
  }
  return check.claims;
}
