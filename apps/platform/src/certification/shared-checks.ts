import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { dspOAuth } from '@stream/contracts/apis/become-a-dsp/index';
import { posOAuth } from '@stream/contracts/apis/become-a-pos/index';
import { CERTIFICATION_TRIGGER_PATH, type CertificationTrigger } from '@stream/contracts/certification';
import { Skip, excerpt, reportable, type Check, type CheckRun } from './check.ts';
import type { ReceivedWebhook } from './inbox.ts';
import { acceptedStatus, readAs } from './answer.ts';

/**
 * Checks both merchant sides share: the OAuth flow a POS and a DSP build alike, and "send us this
 * webhook", which every kind of partner is asked for.
 */

const OAUTH = { pos: posOAuth, dsp: dspOAuth } as const;

const clientOf = (t: CheckRun) => {
  const { client } = t.ctx;
  if (!client) throw new Skip('needs the OAuth client credentials (--client-id, --client-secret)');
  return client;
};

/** The redirects a browser follows to redirect_uri, keeping it a GET. */
const REDIRECTS = new Set([302, 303, 307, 308]);

/** Authorize, a refused code, the code exchange, the refresh, and a refused token (`probe`: a call needing one). */
export function oauthChecks(side: 'pos' | 'dsp', guide: string, probe: string): Check[] {
  const { authorize, token } = OAUTH[side];
  const tokenPath = token.path;
  const exchange = (t: CheckRun, grant: Record<string, string>) =>
    t.call({
      method: 'POST',
      path: tokenPath,
      body: {
        ...clientOf(t),
        ...grant,
        ...(OAUTH[side].redirectUri && grant.grant_type === 'authorization_code'
          ? { redirect_uri: t.ctx.inbox.redirectUri }
          : {}),
      },
      redact: { request: token.request?.body, response: token.responses[OAUTH[side].tokenStatus]?.schema },
    });
  /** Keeps the tokens of an answer, read with its grant's schema: a refresh's may keep the refresh token. */
  const keep = (t: CheckRun, grant: 'authorization_code' | 'refresh_token', value: unknown, what: string) => {
    const tokens = t.expectShape(OAUTH[side].answers[grant], value, what);
    t.state.accessToken = tokens.access_token;
    if (tokens.refresh_token !== undefined) t.state.refreshToken = tokens.refresh_token;
    else t.note(`${what} has no refresh_token: the platform keeps refreshing with the one it sent.`);
    if (tokens.id !== undefined) t.state.merchantId = String(tokens.id);
    if (tokens.expire_time < Date.now()) t.note(`${what}: expire_time is in the past (epoch milliseconds?).`);
  };
  return [
    {
      id: `${side}.oauth.authorize`,
      title: 'Authorize redirects back with a code and the state',
      guide,
      async run(t) {
        const { client_id } = clientOf(t);
        const state = `cert_${randomBytes(6).toString('hex')}`;
        const redirect = t.ctx.inbox.redirectUri;
        const answer = await t.call({
          method: 'GET',
          path: authorize.path,
          query: { client_id, response_type: 'code', redirect_uri: redirect, state },
        });
        if (!REDIRECTS.has(answer.status)) {
          t.fail(
            `GET ${authorize.path} with redirect_uri ${redirect} answered ${answer.status}${excerpt(answer.text)}. ` +
              `If you refuse a redirect_uri you did not register: ${t.ctx.inbox.redirectHelp}. Otherwise ` +
              'certification needs a test merchant that approves without a login page: redirect (302, 303, 307 ' +
              'or 308) to redirect_uri with code and state, for a client that does not ask for HTML (Accept: ' +
              'application/json), or run with --token.',
          );
        }
        const header = answer.headers.get('location');
        if (!header) {
          return t.fail(
            `GET ${authorize.path} answered ${answer.status} with no Location header: redirect to redirect_uri ${redirect} with code and state.`,
          );
        }
        let location: URL;
        try {
          location = new URL(header, redirect);
        } catch {
          return t.fail(
            `The redirect's Location ${JSON.stringify(header.slice(0, 200))} is not a URL: redirect to redirect_uri ${redirect} with code and state.`,
          );
        }
        if (`${location.origin}${location.pathname}` !== redirect) {
          t.fail(
            `The redirect goes to ${location.origin}${location.pathname}; it must go to redirect_uri ${redirect}.`,
          );
        }
        // An OAuth error redirect (RFC 6749 4.1.2.1): the test merchant did not approve.
        const error = location.searchParams.get('error');
        if (error !== null && !location.searchParams.has('code')) {
          const description = location.searchParams.get('error_description');
          t.fail(
            `The redirect carried error=${error}${description ? ` (${description})` : ''} instead of a code: ` +
              'certification needs a test merchant that approves the client without a login page, or run with --token.',
          );
        }
        if (location.searchParams.get('state') !== state) {
          t.fail(
            `The redirect must carry state=${state} unchanged; it carried ${location.searchParams.get('state')}.`,
          );
        }
        const code = location.searchParams.get('code');
        if (!code) return t.fail('The redirect must carry the authorization code as ?code=.');
        t.state.code = code;
      },
    },
    {
      id: `${side}.oauth.bad-code`,
      title: 'An unknown authorization code is refused with 401',
      guide,
      async run(t) {
        const answer = await exchange(t, { grant_type: 'authorization_code', code: 'cert-unknown-code' });
        if (answer.status !== 401) {
          t.fail(`POST ${tokenPath} with an unknown code must answer 401; it answered ${answer.status}.`);
        }
      },
    },
    {
      id: `${side}.oauth.token`,
      title: 'The code is exchanged for tokens',
      guide,
      async run(t) {
        const code = t.need('code', `${side}.oauth.authorize`);
        const answer = await exchange(t, { grant_type: 'authorization_code', code });
        t.expect2xx(answer, `POST ${tokenPath} with the code`);
        if (answer.status !== OAUTH[side].tokenStatus) {
          t.note(`The contract answers ${OAUTH[side].tokenStatus}; ${answer.status} is accepted (any 2xx).`);
        }
        keep(t, 'authorization_code', answer.json, 'The token answer');
      },
    },
    {
      id: `${side}.oauth.refresh`,
      title: 'The refresh token gives a new access token (a new refresh token is optional)',
      guide,
      async run(t) {
        const refresh_token = t.need('refreshToken', `${side}.oauth.token`);
        const answer = await exchange(t, { grant_type: 'refresh_token', refresh_token });
        t.expect2xx(answer, `POST ${tokenPath} with the refresh token`);
        keep(t, 'refresh_token', answer.json, 'The refresh answer');
      },
    },
    {
      id: `${side}.oauth.bad-token`,
      title: 'A call with an unknown access token is refused with 401',
      guide,
      async run(t) {
        const answer = await t.call({ method: 'GET', path: probe, token: 'cert-unknown-token' });
        if (answer.status !== 401) {
          t.fail(
            `GET ${probe} with an unknown bearer token must answer 401 (the platform refreshes then); it answered ${answer.status}.`,
          );
        }
      },
    },
  ];
}

const NOT_BUILT = new Set([404, 405, 501]);

/** A webhook the kit asks for: its type, its contract, and where its body names the trigger's ids. */
export interface WebhookAsk {
  type: string;
  schema: z.ZodType;
  /** The body field (dotted path) that must carry each id the trigger named; what that id is, in words. */
  names: Partial<Record<'location_id' | 'order_id', { field: string; is: string }>>;
  /** Why the platform needs it, added to the failure when it does not come. */
  why?: string;
}

const at = (body: unknown, field: string): unknown =>
  field
    .split('.')
    .reduce<unknown>((v, k) => (typeof v === 'object' && v !== null ? (v as never)[k] : undefined), body);

/**
 * "Send this webhook now": posts the trigger to the partner's test build, or, when it has none, asks
 * the person running the kit, then waits for the webhook and checks its signature, its shape and
 * that it names the trigger's order and location (production looks each id up: 404 otherwise).
 */
export async function askForWebhook(
  t: CheckRun,
  ask: WebhookAsk,
  about: Omit<CertificationTrigger, 'type' | 'webhook_url'>,
): Promise<unknown> {
  const { inbox, webhookWaitMs } = t.ctx;
  const since = Date.now();
  const trigger: CertificationTrigger = { type: ask.type, webhook_url: inbox.webhookUrl, ...about };
  const answer = await t.call({
    method: 'POST',
    path: CERTIFICATION_TRIGGER_PATH,
    body: trigger,
    sign: true,
    ...(t.state.accessToken ? { token: t.state.accessToken } : {}),
  });
  if (NOT_BUILT.has(answer.status)) {
    t.ctx.prompt(
      `Send a signed ${ask.type} webhook${trigger.status ? ` with status ${trigger.status}` : ''}` +
        `${trigger.order_id ? ` for order ${trigger.order_id}` : ''}` +
        `${trigger.location_id ? ` of location ${trigger.location_id}` : ''} to ${inbox.webhookUrl} ` +
        `(waiting ${Math.round(webhookWaitMs / 1000)} s)`,
      { ...trigger, until: new Date(since + webhookWaitMs).toISOString() },
    );
  } else {
    t.expect2xx(answer, `POST ${CERTIFICATION_TRIGGER_PATH} (the certification trigger)`);
  }
  // A body that is not JSON has no type: taken as the one asked for, to say why it was refused.
  const got = await inbox.next(
    (w) => typeOf(w.body) === ask.type || (w.refused !== undefined && w.body === undefined),
    since,
    webhookWaitMs,
  );
  if (!got) {
    return t.fail(
      `No ${ask.type} webhook reached ${inbox.webhookUrl} within ${Math.round(webhookWaitMs / 1000)} s` +
        `${await cameInstead(t, since)}. Send it there, signed, as you send it to the platform.${ask.why ? ` ${ask.why}` : ''}`,
    );
  }
  t.exchanges.push({
    direction: 'received',
    method: 'POST',
    url: `${inbox.webhookUrl}${got.path.slice('/webhooks'.length)}`,
    // As the inbox read it (a `__proto__` key dropped), cut as every body of the report is.
    request_body: reportable(got.raw, got.body),
    // What the inbox answered: production's status for it (`answer.ts`).
    status: got.refused?.status ?? (got.signature === 'valid' ? acceptedStatus(t.ctx.kind, got.body) : 401),
    duration_ms: 0,
  });
  if (got.refused) {
    t.fail(
      `The ${ask.type} webhook reached ${inbox.webhookUrl} and was refused ${got.refused.status}, as the platform ` +
        `refuses it: ${got.refused.reason}.`,
    );
  }
  if (got.signature !== 'valid') {
    t.fail(
      `The ${ask.type} webhook's Stream-Webhook-Signature failed (${got.signature}): send the lower-case hex ` +
        'HMAC-SHA256 of the exact body bytes, keyed with your webhook secret.',
    );
  }
  // As production's route reads it: a POS's or DSP's optional field sent as null is absent.
  const body = t.expectShape(ask.schema, readAs(t.ctx.kind, got.body).input, `The ${ask.type} webhook`);
  for (const key of ['order_id', 'location_id'] as const) {
    const name = ask.names[key];
    const expected = trigger[key];
    if (!name || expected === undefined) continue;
    const came = at(body, name.field);
    if (came !== expected) {
      t.fail(
        `The ${ask.type} webhook names ${name.field} ${JSON.stringify(came)}; the trigger asked about ` +
          `${JSON.stringify(expected)} (${name.is}). Name the ${key === 'order_id' ? 'order' : 'location'} ` +
          'the trigger names: the platform answers 404 to an id it does not know.',
      );
    }
  }
  return body;
}

/**
 * `; what came instead: a "order.status.update" webhook, refused 400: …`, naming the webhooks that
 * reached the inbox while the check waited (at most three), or nothing when none did: a partner that
 * sent a webhook of another `type` is told which, not only that the one asked for never came.
 */
async function cameInstead(t: CheckRun, since: number): Promise<string> {
  const others: ReceivedWebhook[] = [];
  await t.ctx.inbox.next((w) => (others.push(w), false), since, 0);
  if (others.length === 0) return '';
  const described = others.slice(0, 3).map((w) => {
    const type = typeOf(w.body);
    const what = typeof type === 'string' ? `a ${JSON.stringify(type)} webhook` : 'a webhook with no type';
    const verdict = w.refused
      ? `, refused ${w.refused.status}: ${w.refused.reason}`
      : w.signature !== 'valid'
        ? `, refused 401 (${w.signature})`
        : '';
    return `${what}${verdict}`;
  });
  const more = others.length > 3 ? ` (and ${others.length - 3} more)` : '';
  return `; what came instead: ${described.join('; ')}${more}`;
}

/** A check that asks for one webhook (`askForWebhook`), then verifies more of its body. */
export function webhookCheck(
  o: WebhookAsk & {
    id: string;
    title: string;
    guide: string;
    required?: boolean;
    /** The location and order the webhook is about, from the run so far (may skip). */
    about(t: CheckRun): Pick<CertificationTrigger, 'location_id' | 'order_id'>;
    /** More to check on the webhook's body once its shape and ids are right. */
    verify?(t: CheckRun, body: unknown): void;
  },
): Check {
  return {
    id: o.id,
    title: o.title,
    guide: o.guide,
    ...(o.required === false ? { required: false } : {}),
    async run(t) {
      const body = await askForWebhook(t, o, o.about(t));
      o.verify?.(t, body);
    },
  };
}

const typeOf = (body: unknown) =>
  typeof body === 'object' && body !== null ? (body as { type?: unknown }).type : undefined;
