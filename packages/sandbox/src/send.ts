import { randomBytes } from 'node:crypto';
import { DspOrder, DspWebhook } from '@stream/contracts/apis/become-a-dsp/index';
import { hmacHex } from '@stream/contracts/server/signature';
import { ADDRESSED_FULFILLMENT_TYPES } from '@stream/contracts';
import { SandboxError, check } from './http.ts';

/**
 * What a simulator (or `stream-sandbox dsp send-order`) sends the platform: signed webhooks, as a
 * real POS or DSP would. No Fastify here: the CLI uses it without starting a server.
 */

/** What the platform answered a webhook: its status and its body (parsed when JSON, else the text). */
export interface PlatformAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * Posts `raw` to `{platformUrl}{path}` with `Stream-Webhook-Signature`: lower-case hex HMAC-SHA256
 * of exactly these bytes with the partner's webhook secret. A platform that cannot be reached is a
 * 502 {@link SandboxError} naming it (never an unexplained 500).
 */
export async function sendSigned(
  platformUrl: string,
  path: string,
  secret: string,
  raw: string | Buffer,
): Promise<PlatformAnswer> {
  const url = `${platformUrl.replace(/\/$/, '')}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stream-webhook-signature': hmacHex(secret, raw) },
      body: typeof raw === 'string' ? raw : new Uint8Array(raw),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new SandboxError(
      'internal_error',
      `The platform at ${url} did not answer (${cause?.code ?? cause?.message ?? (err as Error).message}).`,
      undefined,
      502,
    );
  }
  const text = await res.text();
  let body: unknown = text || null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: answer the text
  }
  return { status: res.status, body };
}

/** {@link sendSigned} with `body` serialised as JSON: the bytes signed are the bytes sent. */
export function sendWebhook(
  platformUrl: string,
  path: string,
  secret: string,
  body: unknown,
): Promise<PlatformAnswer> {
  return sendSigned(platformUrl, path, secret, JSON.stringify(body));
}

/** Where the platform takes a partner's webhooks; `ref` is the partner's id or slug. */
export const WEBHOOK_PATHS = {
  pos: (ref: string) => `/pos/${encodeURIComponent(ref)}/webhook`,
  dsp: (ref: string) => `/order/${encodeURIComponent(ref)}`,
  events: (ref: string) => `/event-provider/${encodeURIComponent(ref)}/webhook`,
} as const;

let demoOrders = 0;

/**
 * A valid DSP order (pickup, one item with a modifier, integer cents in `usd`, an E.164 phone) with
 * `overrides` on top; a fresh random `id` unless one is given, so two demo orders are two orders. A
 * delivery type given without an address gets a demo one, so the order still passes the platform's checks.
 */
export function demoDspOrder(overrides: Partial<DspOrder> = {}): DspOrder {
  demoOrders += 1;
  const address =
    overrides.fulfillment_type && ADDRESSED_FULFILLMENT_TYPES.includes(overrides.fulfillment_type)
      ? {
          delivery_address: {
            address_line_1: '1 Sandbox Way',
            city: 'Brooklyn',
            postal_code: '11211',
            country: 'US',
          },
        }
      : {};
  return {
    id: `sbx-dsp-${randomBytes(6).toString('hex')}`,
    customer_facing_id: String(1000 + demoOrders),
    customers: [{ id: 'sbx-customer', name: 'Sandy Box', email: 'sandy@example.com', phone: '+14155550123' }],
    items: [
      {
        id: 'sbx-taco',
        name: 'Carnitas taco',
        quantity: 2,
        price: 450,
        currency: 'usd',
        modifiers: [{ id: 'sbx-salsa', name: 'Extra salsa', quantity: 1, price: 50, currency: 'usd' }],
      },
    ],
    subtotal: 950,
    tax: 85,
    fulfillment_type: 'pickup',
    ...address,
    ...overrides,
  };
}

/**
 * The DSP webhook to send for `input`: any DspWebhook as given, except a `new_order` whose `order` is
 * absent or incomplete (not a DspOrder by itself), which is filled into {@link demoDspOrder}. The
 * result must then be a DspWebhook, else 400 validation_failed naming the field. Answers the body
 * to send (unknown fields kept: the schema only checks it).
 */
export function dspWebhookFrom(input: unknown): DspWebhook {
  const given = (input ?? {}) as { type?: unknown; order?: unknown };
  const { order } = given;
  const partial =
    order === undefined || (typeof order === 'object' && order !== null && !Array.isArray(order));
  const body =
    given.type === 'new_order' && partial && !DspOrder.safeParse(order).success
      ? { ...given, order: demoDspOrder((order ?? {}) as Partial<DspOrder>) }
      : given;
  check(DspWebhook, body, 'body');
  return body as DspWebhook;
}

/**
 * One DSP webhook to the platform (`POST /order/{partnerRef}`), signed: what the DSP's
 * `POST /_sandbox/send` and `stream-sandbox dsp send-order` both do. `input` as {@link dspWebhookFrom}.
 * Answers the platform's answer and the webhook `sent`: a filled-in order's own id (the `order_id` of
 * the DSP events about it) is there, and nowhere else.
 */
export async function sendDspWebhook(
  platformUrl: string,
  partnerRef: string,
  secret: string,
  input: unknown,
): Promise<PlatformAnswer & { sent: DspWebhook }> {
  const sent = dspWebhookFrom(input);
  return { ...(await sendWebhook(platformUrl, WEBHOOK_PATHS.dsp(partnerRef), secret, sent)), sent };
}
