import type { z } from 'zod';
import {
  dspConnectLocation,
  dspDisconnectLocation,
  dspListLocations,
  dspOAuth,
} from '@stream/contracts/apis/become-a-dsp/index';
import {
  posConnectLocation,
  posDisconnectLocation,
  posListLocations,
  posOAuth,
  type PosLocation,
} from '@stream/contracts/apis/become-a-pos/index';
import type { Operation } from '@stream/contracts/operation';
import type { AppContext } from '../context.ts';
import { decrypt } from '../http/secrets.ts';
import { DeliveryError, deliver } from '../jobs/http-client.ts';
import type { Partner } from '../partners/service.ts';

/**
 * The platform's calls to a POS or DSP, built from the become-a-pos / become-a-dsp operations
 * (path, method) and checked against their response schemas, so the platform and the sandbox
 * read the same contract. Every call goes through `deliver`, so it is in the delivery log.
 */

export type PartnerType = 'pos' | 'dsp';

const OPS = {
  pos: {
    oauth: posOAuth,
    locations: posListLocations,
    connect: posConnectLocation,
    disconnect: posDisconnectLocation,
  },
  dsp: {
    oauth: dspOAuth,
    locations: dspListLocations,
    connect: dspConnectLocation,
    disconnect: dspDisconnectLocation,
  },
} as const;

/** What went wrong talking to a partner, in the terms the callers act on. */
export class PartnerCallError extends Error {
  constructor(
    /** `unauthorized`: 401 (token or grant refused); `rejected`: another 4xx; `unavailable`: no answer, 5xx, or off-contract. */
    readonly reason: 'unauthorized' | 'rejected' | 'unavailable',
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'PartnerCallError';
  }
}

/** The merchant tokens of a token answer (POS and DSP alike). */
export interface MerchantTokenAnswer {
  access_token: string;
  refresh_token: string;
  expire_time: number;
  refresh_token_expire_time: number;
  id: string;
  sso_details?: Record<string, unknown> | undefined;
}

/** A POS location or DSP store as listed by the partner (DSP stores have no time zone). */
export type PartnerLocation = Pick<PosLocation, 'provider_id' | 'name' | 'address'> & { timezone?: string };

export interface PartnerTarget {
  partner: Partner;
  type: PartnerType;
}

function urlOf(t: PartnerTarget, op: Operation, query?: Record<string, string>): string {
  if (!t.partner.baseUrl)
    throw new PartnerCallError('unavailable', `The partner ${t.partner.slug} has no base URL.`);
  const url = new URL(t.partner.baseUrl.replace(/\/+$/, '') + op.path);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  return url.toString();
}

/**
 * The partner's answer checked against the operation's schema for the status it gave (or, for a
 * 2xx the contract does not list, such as a POS token answer with 200 instead of 201, its 2xx one).
 */
function checked<T>(op: Operation, status: number, body: unknown, what: string): T {
  const success = Object.entries(op.responses).find(([s, r]) => Number(s) < 300 && r.schema)?.[1];
  const schema = (op.responses[status]?.schema ?? success?.schema) as z.ZodType<T> | undefined;
  const result = schema?.safeParse(body);
  if (!result?.success) {
    const issue = result?.error.issues[0];
    const why = issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : `unexpected status ${status}`;
    throw new PartnerCallError(
      'unavailable',
      `${what}: the answer does not follow the contract (${why}).`,
      status,
    );
  }
  return result.data;
}

async function call<T>(
  ctx: AppContext,
  t: PartnerTarget,
  op: Operation,
  opts: {
    token?: string;
    body?: unknown;
    query?: Record<string, string>;
    job?: { id: string; attempt: number };
  },
): Promise<T> {
  const what = `${op.method} ${op.path} at ${t.partner.slug}`;
  try {
    const res = await deliver(ctx, {
      method: op.method,
      url: urlOf(t, op, opts.query),
      body: opts.body,
      headers: {
        accept: 'application/json',
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      },
      partnerId: t.partner.id,
      job: opts.job,
    });
    return checked<T>(op, res.status, res.json(), what);
  } catch (err) {
    if (!(err instanceof DeliveryError)) throw err;
    const s = err.status;
    const reason =
      s === 401 ? 'unauthorized' : s !== undefined && s >= 400 && s < 500 ? 'rejected' : 'unavailable';
    throw new PartnerCallError(reason, `${what}: ${errorSummary(err)}`, s);
  }
}

/** The partner's own error code and message when it sent the platform's error body, else the status. */
function errorSummary(err: DeliveryError): string {
  try {
    const body = JSON.parse(err.responseText ?? '') as { error?: { code?: string; message?: string } };
    if (body.error?.code) return `${err.status} ${body.error.code}: ${body.error.message ?? ''}`.trim();
  } catch {
    // not JSON: fall through
  }
  return err.status === undefined ? err.message : `HTTP ${err.status}`;
}

/** Where the merchant's browser goes to log in at the partner. */
export function authorizeUrl(t: PartnerTarget, redirectUri: string, state: string): string {
  if (!t.partner.oauthClientId)
    throw new PartnerCallError('unavailable', `The partner ${t.partner.slug} has no OAuth client.`);
  return urlOf(t, OPS[t.type].oauth.authorize, {
    client_id: t.partner.oauthClientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    state,
  });
}

/** True when the partner record has what merchant OAuth needs. */
export function isOAuthConfigured(p: Partner): boolean {
  return Boolean(p.baseUrl && p.oauthClientId && p.oauthClientSecretEnc);
}

export type Grant = { code: string; redirectUri: string } | { refreshToken: string };

/** `POST /stream-{pos|dsp}/v1/token`: a code or refresh token for merchant tokens. */
export async function exchangeToken(
  ctx: AppContext,
  t: PartnerTarget,
  grant: Grant,
): Promise<MerchantTokenAnswer> {
  const { partner } = t;
  if (!partner.oauthClientId || !partner.oauthClientSecretEnc) {
    throw new PartnerCallError('unavailable', `The partner ${partner.slug} has no OAuth client.`);
  }
  const client = {
    client_id: partner.oauthClientId,
    client_secret: decrypt(ctx.config.encryptionKey, partner.oauthClientSecretEnc),
  };
  const { oauth } = OPS[t.type];
  const body =
    'code' in grant
      ? {
          ...client,
          grant_type: 'authorization_code',
          code: grant.code,
          // The DSP token request has no redirect_uri (wire-notes).
          ...(oauth.redirectUri ? { redirect_uri: grant.redirectUri } : {}),
        }
      : { ...client, grant_type: 'refresh_token', refresh_token: grant.refreshToken };
  return call<MerchantTokenAnswer>(ctx, t, oauth.token, { body });
}

/** `GET /stream-{pos|dsp}/v1/locations` with the merchant's token. */
export async function listPartnerLocations(
  ctx: AppContext,
  t: PartnerTarget,
  token: string,
): Promise<PartnerLocation[]> {
  const answer = await call<{ locations: PartnerLocation[] }>(ctx, t, OPS[t.type].locations, { token });
  return answer.locations;
}

/** Connects (POS `PUT`, DSP `POST`) or disconnects (`DELETE`) one location at the partner. */
export async function changeConnection(
  ctx: AppContext,
  t: PartnerTarget,
  token: string,
  locationId: string,
  connect: boolean,
  job?: { id: string; attempt: number },
): Promise<void> {
  const op = connect ? OPS[t.type].connect : OPS[t.type].disconnect;
  await call(ctx, t, op, { token, body: { location_id: locationId }, job });
}
