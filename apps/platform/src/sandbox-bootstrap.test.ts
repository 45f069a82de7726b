import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../test/http.ts';
import { testDatabase } from '../test/db.ts';
import { startTestPlatform, type TestPlatform } from '../test/platform.ts';
import { loadConfig } from './config.ts';
import type { AppContext } from './context.ts';
import { decrypt } from './http/secrets.ts';
import { findPartner, listPartners, webhookSecretOf } from './partners/service.ts';
import { ensureSandboxPartners, sandboxCredentials } from './sandbox-bootstrap.ts';
import { startPlatform } from './server.ts';

/** A port nobody listens on right now, so the platform's PUBLIC_URL can be known before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const redirect = 'http://127.0.0.1:9/onboarding/callback';

/** The merchant OAuth flow against a mounted simulator, with the credentials stored on its partner row. */
async function merchantTokens(platform: TestPlatform, slug: string, prefix: string) {
  const { config, db } = platform.app.ctx;
  const partner = (await findPartner(db, slug))!;
  const client = {
    client_id: partner.oauthClientId!,
    client_secret: decrypt(config.encryptionKey, partner.oauthClientSecretEnc!),
  };
  const query = new URLSearchParams({
    client_id: client.client_id,
    response_type: 'code',
    redirect_uri: redirect,
    state: 's',
  });
  const back = await call('GET', `${partner.baseUrl}/${prefix}/v1/authorize?${query}`);
  expect(back.status).toBe(302);
  const code = new URL(back.headers.get('location')!).searchParams.get('code');
  return call('POST', `${partner.baseUrl}/${prefix}/v1/token`, {
    body: { ...client, grant_type: 'authorization_code', code, redirect_uri: redirect },
  });
}

describe('sandbox partners mounted in the platform', () => {
  let platform: TestPlatform;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    platform = await startTestPlatform({ sandbox: true, port, publicUrl: `http://127.0.0.1:${port}` });
  });
  afterAll(() => platform?.stop());

  it('registers the three sandbox partners with base URLs under /sandbox', async () => {
    const rows = (await listPartners(platform.app.ctx.db))
      .filter((p) => p.slug.startsWith('sandbox-'))
      .sort((a, b) => a.slug.localeCompare(b.slug));
    expect(rows.map((p) => [p.slug, p.kind, p.base_url, Boolean(p.oauth_client_id)])).toEqual([
      ['sandbox-dsp', 'dsp', `http://127.0.0.1:${port}/sandbox/dsp`, true],
      ['sandbox-events', 'events', `http://127.0.0.1:${port}/sandbox/events`, false],
      ['sandbox-pos', 'pos', `http://127.0.0.1:${port}/sandbox/pos`, true],
    ]);
    const pos = (await findPartner(platform.app.ctx.db, 'sandbox-pos'))!;
    expect(pos.settings.sandbox).toBe(true);
  });

  it('lets the platform run merchant OAuth against the mounted POS and DSP over HTTP', async () => {
    const pos = await merchantTokens(platform, 'sandbox-pos', 'stream-pos');
    expect(pos.status).toBe(201);
    expect(pos.body.id).toBe('demo-merchant');
    const locations = await call('GET', `${platform.url}/sandbox/pos/stream-pos/v1/locations`, {
      token: pos.body.access_token,
    });
    expect(locations.body.locations).toHaveLength(3);
    const dsp = await merchantTokens(platform, 'sandbox-dsp', 'stream-dsp');
    expect(dsp.status).toBe(200);
    expect(dsp.body.sso_details).toBeUndefined();
    const wrong = await call('POST', `${platform.url}/sandbox/pos/stream-pos/v1/token`, {
      body: {
        client_id: 'nope',
        client_secret: 'nope',
        grant_type: 'refresh_token',
        refresh_token: pos.body.refresh_token,
      },
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'invalid_client']);
  });

  it('verifies events with the sandbox-events webhook secret', async () => {
    const { config, db } = platform.app.ctx;
    const secret = webhookSecretOf(config.encryptionKey, (await findPartner(db, 'sandbox-events'))!);
    const body = JSON.stringify({
      type: 'order.confirmed',
      location_id: 'loc_1',
      reference_id: 'ord_1',
      order: {},
    });
    const signature = createHmac('sha256', secret).update(body).digest('hex');
    const res = await call('POST', `${platform.url}/sandbox/events/event`, {
      body,
      headers: { 'x-stream-signature': signature },
    });
    expect(res.status).toBe(204);
    const received = await call('GET', `${platform.url}/sandbox/events/_sandbox/received`);
    expect(received.body.received.at(-1)).toMatchObject({
      path: '/event',
      status: 204,
      notes: { signature: 'valid' },
    });
  });

  it('a second start on the same database reuses the partners, moves their base URLs and keeps tokens valid', async () => {
    const tokens = await merchantTokens(platform, 'sandbox-pos', 'stream-pos');
    const before = await findPartner(platform.app.ctx.db, 'sandbox-pos');
    const port2 = await freePort();
    const second = await startPlatform(
      { ...platform.config, port: port2, publicUrl: `http://127.0.0.1:${port2}` },
      { database: platform.app.ctx.database, logger: pino({ level: 'silent' }) },
    );
    try {
      const rows = (await listPartners(second.app.ctx.db)).filter((p) => p.slug.startsWith('sandbox-'));
      expect(rows).toHaveLength(3);
      const after = (await findPartner(second.app.ctx.db, 'sandbox-pos'))!;
      expect(after.id).toBe(before!.id);
      expect(after.oauthClientId).toBe(before!.oauthClientId);
      expect(after.baseUrl).toBe(`http://127.0.0.1:${port2}/sandbox/pos`);
      const locations = await call('GET', `${second.url}/sandbox/pos/stream-pos/v1/locations`, {
        token: tokens.body.access_token,
      });
      expect(locations.status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});

describe('ensureSandboxPartners', () => {
  it('prints the credentials once, fills the base URLs in once the port is known, and can read them back', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-bootstrap-'));
    const config = {
      ...loadConfig({ DATA_DIR: dataDir, ENCRYPTION_KEY: randomBytes(32).toString('base64') }),
      publicUrl: '',
      logLevel: 'info',
    };
    const database = await testDatabase();
    try {
      const platformCtx: AppContext = { config, database, db: database.db, log: pino({ level: 'silent' }) };
      const printed: string[] = [];
      const created = await ensureSandboxPartners(platformCtx, (t) => printed.push(t));
      expect(created.map((c) => c.slug)).toEqual(['sandbox-pos', 'sandbox-dsp', 'sandbox-events']);
      expect(created.every((c) => c.base_url === null)).toBe(true);
      expect(printed).toHaveLength(1);
      for (const c of created) {
        expect(printed[0]).toContain(c.client_secret);
        expect(printed[0]).toContain(c.webhook_secret);
      }
      expect(printed[0]).toContain(created[0]!.oauth_client_secret!);

      platformCtx.config.publicUrl = 'http://localhost:8080';
      expect(await ensureSandboxPartners(platformCtx, (t) => printed.push(t))).toEqual([]);
      expect(printed).toHaveLength(1);
      const pos = (await findPartner(database.db, 'sandbox-pos'))!;
      expect(pos.baseUrl).toBe('http://localhost:8080/sandbox/pos');
      const again = await sandboxCredentials(database.db, platformCtx.config.encryptionKey, pos);
      expect(again).toEqual({ ...created[0], base_url: 'http://localhost:8080/sandbox/pos' });
    } finally {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
