import { createHmac, randomBytes } from 'node:crypto';
import { ORDER_EVENT_EXAMPLES } from '@stream/contracts/apis/integrate-with-events/index';
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
import { ensureSandboxPartners, sandboxControlClients, sandboxCredentials } from './sandbox-bootstrap.ts';
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
const basic = (c: { client_id: string; client_secret: string }) => ({
  authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
});

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
    const body = JSON.stringify(ORDER_EVENT_EXAMPLES.confirmed);
    const signature = createHmac('sha256', secret).update(body).digest('hex');
    const res = await call('POST', `${platform.url}/sandbox/events/event`, {
      body,
      headers: { 'x-stream-signature': signature },
    });
    expect(res.status).toBe(204);
    const [own] = await sandboxControlClients(db, config.encryptionKey, 'sandbox-events');
    const received = await call('GET', `${platform.url}/sandbox/events/_sandbox/received`, {
      headers: basic(own!),
    });
    expect(received.body.received.at(-1)).toMatchObject({
      path: '/event',
      status: 204,
      notes: { signature: 'valid' },
    });
  });

  it('guards the control routes with the sandbox partner own credentials: 401 without, no other traffic shown', async () => {
    const { config, db } = platform.app.ctx;
    const pos = `${platform.url}/sandbox/pos/_sandbox`;
    const [posOAuth, posClient] = await sandboxControlClients(db, config.encryptionKey, 'sandbox-pos');
    const [dspOAuth] = await sandboxControlClients(db, config.encryptionKey, 'sandbox-dsp');
    const [events] = await sandboxControlClients(db, config.encryptionKey, 'sandbox-events');
    const stranger = await platform.partner({ kind: 'white_label' }); // a partner of this platform
    await merchantTokens(platform, 'sandbox-pos', 'stream-pos'); // traffic for the POS to log
    await merchantTokens(platform, 'sandbox-dsp', 'stream-dsp');

    const refused = [
      {},
      basic(stranger),
      { authorization: `Bearer ${stranger.client_secret}` },
      basic(dspOAuth!), // the DSP simulator's credentials are not the POS's
      basic(events!),
      basic({ ...posOAuth!, client_secret: `${posOAuth!.client_secret}x` }),
    ];
    for (const headers of refused) {
      for (const [method, path] of [
        ['GET', '/received'],
        ['POST', '/switches'],
        ['GET', ''],
      ] as const) {
        const res = await call(method, `${pos}${path}`, {
          headers,
          ...(method === 'POST' ? { body: { fail_refresh: true } } : {}),
        });
        expect([res.status, res.body.error.code]).toEqual([401, 'invalid_client']);
      }
    }
    // Its own credentials (the OAuth client it issued, or its Partner API client) work, and show
    // the POS's traffic only: the DSP's token exchange is not in it.
    for (const own of [posOAuth!, posClient!]) {
      const switches = await call('GET', `${pos}/switches`, { headers: basic(own) });
      expect([switches.status, switches.body.fail_refresh]).toEqual([200, false]); // nothing got through
      const received = await call('GET', `${pos}/received`, { headers: basic(own) });
      expect(received.status).toBe(200);
      const paths = received.body.received.map((r: { path: string }) => r.path);
      expect(paths).toEqual(expect.arrayContaining(['/stream-pos/v1/authorize', '/stream-pos/v1/token']));
      expect(paths.every((p: string) => p.startsWith('/stream-pos/'))).toBe(true);
    }
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
