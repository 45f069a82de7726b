import { createHmac } from 'node:crypto';
import { defineOperation } from '@stream/contracts/operation';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { mount } from '../http/route.ts';
import type { PartnerCredentials } from '../partners/service.ts';

// A test-only webhook route: the security handler is what is under test, not any real webhook.
const testWebhook = defineOperation({
  api: 'partner',
  operationId: 'testWebhook',
  method: 'POST',
  path: '/test-webhook/{partner_slug}',
  summary: 'Test webhook',
  description: 'Echoes the verified partner.',
  tags: [],
  security: { kind: 'webhook-signature' },
  servedBy: 'platform',
  request: { params: z.object({ partner_slug: z.string() }) },
  responses: {
    200: { description: 'Verified', schema: z.object({ partner_id: z.string(), type: z.string() }) },
  },
  errors: ['signature_missing', 'signature_malformed', 'signature_mismatch', 'unknown_partner'],
});

const sign = (secret: string, body: string | Buffer) =>
  createHmac('sha256', secret).update(body).digest('hex');

let platform: TestPlatform;
let partner: PartnerCredentials;
let url: string;
const body = '{"type":"order.status.updated","object":{"status":"completed","provider_id":"p-1"}}';

beforeAll(async () => {
  platform = await startTestPlatform(
    {},
    {
      register: (app) =>
        mount(app, testWebhook, async (req) => ({
          partner_id: req.partner!.id,
          type: (req.body as { type: string }).type,
        })),
    },
  );
  partner = await platform.partner({ kind: 'pos' });
  url = `${platform.url}/test-webhook/${partner.slug}`;
});
afterAll(() => platform?.stop());

const post = (target: string, bytes: string | Buffer, signature?: string) =>
  call('POST', target, {
    body: bytes,
    headers: signature === undefined ? {} : { 'stream-webhook-signature': signature },
  });

describe('Stream-Webhook-Signature', () => {
  it('accepts the hex HMAC of the raw body and tells the handler which partner sent it', async () => {
    const res = await post(url, body, sign(partner.webhook_secret, body));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ partner_id: partner.partner_id, type: 'order.status.updated' });
  });

  it('resolves the partner by id as well as by slug', async () => {
    const res = await post(
      `${platform.url}/test-webhook/${partner.partner_id}`,
      body,
      sign(partner.webhook_secret, body),
    );
    expect(res.status).toBe(200);
  });

  it('accepts an upper-case hex digest', async () => {
    const res = await post(url, body, sign(partner.webhook_secret, body).toUpperCase());
    expect(res.status).toBe(200);
  });

  it('answers 401 signature_missing without the header', async () => {
    const res = await post(url, body);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('signature_missing');
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('answers 401 signature_malformed for anything but 64 hex characters', async () => {
    const good = sign(partner.webhook_secret, body);
    for (const bad of [`sha256=${good}`, good.slice(1), `${good}0`, 'z'.repeat(64), 'not a signature']) {
      const res = await post(url, body, bad);
      expect(res.status, bad).toBe(401);
      expect(res.body.error.code, bad).toBe('signature_malformed');
    }
  });

  it('answers 401 signature_mismatch when signed with another secret', async () => {
    const other = await platform.partner({ kind: 'pos' });
    const res = await post(url, body, sign(other.webhook_secret, body));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('signature_mismatch');
  });

  it('answers 401 signature_mismatch when one byte of the body changed', async () => {
    const signature = sign(partner.webhook_secret, body);
    const changed = body.replace('p-1', 'p-2');
    expect(Buffer.from(changed).length).toBe(Buffer.from(body).length);
    const res = await post(url, changed, signature);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('signature_mismatch');
  });

  it('verifies the bytes received, so a signature over re-serialised JSON is refused', async () => {
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    const res = await post(url, pretty, sign(partner.webhook_secret, body));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('signature_mismatch');
    // ...while the same pretty bytes, signed as sent, pass.
    expect((await post(url, pretty, sign(partner.webhook_secret, pretty))).status).toBe(200);
  });

  it('answers 404 unknown_partner for a partner that does not exist', async () => {
    const res = await post(
      `${platform.url}/test-webhook/no-such-partner`,
      body,
      sign(partner.webhook_secret, body),
    );
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('unknown_partner');
  });
});
