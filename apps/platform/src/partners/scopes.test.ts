import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerKind } from '@stream/contracts/common';
import { call } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { requestAccessToken } from '../auth/testing.ts';
import { MIGRATIONS_FOLDER } from '../db/migrate.ts';
import { directCommands } from '../admin/commands.ts';

const WHITE_LABEL = ['user', 'onboarding', 'legacy_onboarding', 'sso', 'billing'];

describe('root client scopes by partner kind', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.stop());

  const rootScopes = async (clientId: string) => {
    const rows = await platform.app.ctx.db.execute<{ scopes: string[] }>(
      sql`select scopes from api_clients where id = ${clientId}`,
    );
    return ((rows as unknown as { rows: { scopes: string[] }[] }).rows ?? rows)[0]!.scopes;
  };

  it('gives a white-label partner the white-label scopes, and a POS, DSP or event provider none', async () => {
    const expected: Record<PartnerKind, string[]> = {
      white_label: WHITE_LABEL,
      pos: [],
      dsp: [],
      events: [],
    };
    for (const [kind, scopes] of Object.entries(expected)) {
      const creds = await platform.partner({ kind: kind as PartnerKind });
      expect(await rootScopes(creds.client_id), kind).toEqual(scopes);
      const grant = await requestAccessToken(platform.url, creds);
      expect(grant.scopes, kind).toEqual(scopes);
    }
  });

  it('keeps the scopes the operator names, whatever the kind', async () => {
    const creds = await platform.partner({ kind: 'dsp', scopes: ['onboarding', 'sso'] });
    expect((await requestAccessToken(platform.url, creds)).scopes).toEqual(['onboarding', 'sso']);
    const limited = await platform.partner({ kind: 'white_label', scopes: ['billing'] });
    expect((await requestAccessToken(platform.url, limited)).scopes).toEqual(['billing']);
  });

  it('lets a DSP token without scopes call the endpoints that need none', async () => {
    const creds = await platform.partner({ kind: 'dsp' });
    const { access_token: token } = await requestAccessToken(platform.url, creds);
    const res = await call('GET', `${platform.url}/orders/ord_unknown/timeline`, { token });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('order_not_found');
  });

  it('answers a DSP token on POST /onboarding/org 403 insufficient_scope saying it is for white-label partners', async () => {
    const creds = await platform.partner({ kind: 'dsp' });
    const { access_token: token } = await requestAccessToken(platform.url, creds);
    const res = await call('POST', `${platform.url}/onboarding/org`, {
      token,
      body: {
        name: 'Org',
        provider_id: 'merchant-dsp',
        user: { email: 'owner@example.com', first_name: 'Ada', last_name: 'Owner' },
      },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toBe(
      'This endpoint needs the scope(s) onboarding; the token has: none. This endpoint is for white-label partners: the scopes user (partner tokens), onboarding (organisations and their onboarding), legacy_onboarding (no endpoint yet), sso (SSO), billing (billing reports) are not granted to a DSP unless its partnership with Stream includes white-label work; ask Stream if it does.',
    );
    const orgs = await platform.app.ctx.db.execute(
      sql`select id from orgs where provider_id = 'merchant-dsp'`,
    );
    expect((orgs as unknown as { rows: unknown[] }).rows ?? orgs).toHaveLength(0);
  });

  it('keeps the plain message for a white-label token that asked for fewer scopes', async () => {
    const creds = await platform.partner({ kind: 'white_label' });
    const { access_token: token } = await requestAccessToken(platform.url, creds, { scopes: ['sso'] });
    const res = await call('GET', `${platform.url}/billing/reports`, { token });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe('This endpoint needs the scope(s) billing; the token has: sso.');
  });

  it('lets the operator give a DSP white-label scopes and take them back, refresh tokens included (partners set-scopes)', async () => {
    const commands = directCommands(platform.app.ctx.database, platform.config.encryptionKey);
    const creds = await platform.partner({ kind: 'dsp' });
    // A company granted before: its hosted scope stays whatever set-scopes says.
    await platform.app.ctx.db.execute(
      sql`update api_clients set scopes = '{menu}' where id = ${creds.client_id}`,
    );
    expect(await commands.setRootScopes(creds.slug, ['sso', 'onboarding', 'user'])).toMatchObject({
      kind: 'dsp',
      client_id: creds.client_id,
      scopes: ['user', 'onboarding', 'sso', 'menu'],
    });
    const granted = await requestAccessToken(platform.url, creds);
    expect(granted.scopes).toEqual(['user', 'onboarding', 'sso', 'menu']);
    const org = await call('POST', `${platform.url}/onboarding/org`, {
      token: granted.access_token,
      body: {
        name: 'Org',
        provider_id: 'merchant-dsp-granted',
        user: { email: 'granted@example.com', first_name: 'Ada', last_name: 'Owner' },
      },
    });
    expect(org.status, org.text).toBe(201);
    // A partner token for that organisation, with a white-label scope of its own.
    const made = await call('POST', `${platform.url}/tokens`, {
      token: granted.access_token,
      body: { org_id: org.body.org_id, token_name: 'bridge', scopes: ['sso'] },
    });
    expect(made.status, made.text).toBe(201);
    const orgCreds = { client_id: made.body.token._id, client_secret: made.body.secret };
    const orgGrant = await requestAccessToken(platform.url, orgCreds);
    expect(orgGrant.scopes).toEqual(['sso']);

    expect((await commands.setRootScopes(creds.partner_id, [])).scopes).toEqual(['menu']);
    const refreshed = await call('POST', `${platform.url}/oauth/token`, {
      body: { grant_type: 'refresh_token', ...creds, refresh_token: granted.refresh_token },
    });
    expect(refreshed.status, refreshed.text).toBe(201);
    expect(refreshed.body.scopes).toEqual(['menu']);
    // The partner token loses the scope its partner no longer has, refresh and new grants alike.
    const orgRefreshed = await call('POST', `${platform.url}/oauth/token`, {
      body: { grant_type: 'refresh_token', ...orgCreds, refresh_token: orgGrant.refresh_token },
    });
    expect(orgRefreshed.status, orgRefreshed.text).toBe(201);
    expect(orgRefreshed.body.scopes).toEqual([]);
    expect((await requestAccessToken(platform.url, orgCreds)).scopes).toEqual([]);
    await expect(commands.setRootScopes('no-such-partner', [])).rejects.toMatchObject({
      code: 'unknown_partner',
    });
  });

  it('answers a POS asking for a white-label scope 400 invalid_scope saying what to do', async () => {
    const creds = await platform.partner({ kind: 'pos' });
    const res = await call('POST', `${platform.url}/oauth/token`, {
      body: { grant_type: 'client_credentials', ...creds, scopes: ['onboarding'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_scope');
    expect(res.body.error.message).toBe(
      "This client was not granted the scope(s) onboarding; it has: none. The scopes user, onboarding, legacy_onboarding, sso and billing are for white-label partners; a POS, DSP or event provider's calls (orders, timelines, menus, certification) need no scope, so leave scopes out, or ask Stream to grant them if your partnership includes white-label work.",
    );
  });
});

describe('migrations 0023 and 0024: non-white-label partners and their partner tokens lose the old default', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stream-migrations-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The migrations folder as it was before 0023. */
  function foldersBefore(tag: string): string {
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8'));
    const index = journal.entries.findIndex((e: { tag: string }) => e.tag === tag);
    expect(index).toBeGreaterThan(0);
    const kept = journal.entries.slice(0, index);
    mkdirSync(join(dir, 'meta'), { recursive: true });
    for (const file of readdirSync(MIGRATIONS_FOLDER)) {
      if (kept.some((e: { tag: string }) => `${e.tag}.sql` === file)) {
        copyFileSync(join(MIGRATIONS_FOLDER, file), join(dir, file));
      }
    }
    writeFileSync(join(dir, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: kept }));
    return dir;
  }

  // Applies every migration to a fresh database: seconds alone, more beside other test files.
  it(
    'strips the white-label scopes of a defaulted non-white-label root client, its partner tokens and their token families, and nothing else',
    { timeout: 120_000 },
    async () => {
      const client = await PGlite.create();
      try {
        const db = drizzle(client);
        await migratePglite(db, { migrationsFolder: foldersBefore('0023_root_client_scopes_by_kind') });
        const old = `{user,onboarding,legacy_onboarding,sso,billing}`;
        await client.exec(`
        insert into partners (id, kind, slug, name, webhook_secret_enc) values
          ('ptr_dsp', 'dsp', 'a-dsp', 'A DSP', 'x'),
          ('ptr_pos', 'pos', 'a-pos', 'A POS', 'x'),
          ('ptr_evt', 'events', 'an-events', 'Events', 'x'),
          ('ptr_wl', 'white_label', 'a-wl', 'WL', 'x');
        insert into orgs (id, partner_id, name, provider_id) values
          ('org_dsp', 'ptr_dsp', 'Org', 'm-1'), ('org_evt', 'ptr_evt', 'Org', 'm-2'), ('org_wl', 'ptr_wl', 'Org', 'm-3');
        insert into api_clients (id, partner_id, org_id, name, secret_hash, scopes) values
          ('cli_dsp', 'ptr_dsp', null, 'root', 'h', '${old}'),
          ('cli_dsp_org', 'ptr_dsp', 'org_dsp', 'org token', 'h', '{onboarding,menu,sso}'),
          ('cli_evt_org', 'ptr_evt', 'org_evt', 'org token', 'h', '{sso,billing}'),
          ('cli_wl_org', 'ptr_wl', 'org_wl', 'org token', 'h', '{billing,sso}'),
          ('cli_pos', 'ptr_pos', null, 'root', 'h', '{menu,user,onboarding,legacy_onboarding,sso,billing,orders,stores}'),
          ('cli_evt', 'ptr_evt', null, 'root', 'h', '{sso}'),
          ('cli_wl', 'ptr_wl', null, 'root', 'h', '${old}');
        insert into token_families (id, client_id, scopes) values
          ('fam_dsp', 'cli_dsp', '${old}'),
          ('fam_dsp_sso', 'cli_dsp', '{sso}'),
          ('fam_dsp_org', 'cli_dsp_org', '{sso,menu}'),
          ('fam_evt_org', 'cli_evt_org', '{billing,sso}'),
          ('fam_wl_org', 'cli_wl_org', '{billing}'),
          ('fam_pos', 'cli_pos', '{menu,user,orders}'),
          ('fam_evt', 'cli_evt', '{sso}'),
          ('fam_wl', 'cli_wl', '${old}');
      `);
        await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
        const clients = await client.query<{ id: string; scopes: string[] }>(
          'select id, scopes from api_clients order by id',
        );
        expect(Object.fromEntries(clients.rows.map((r) => [r.id, r.scopes]))).toEqual({
          cli_dsp: [],
          cli_dsp_org: ['menu'], // a partner token: no white-label scope its root lost; hosted ones stay
          cli_evt_org: ['sso'], // the root's explicit sso stays, billing it never had goes
          cli_wl_org: ['billing', 'sso'],
          cli_pos: ['menu', 'orders', 'stores'], // the hosted scopes of a company grant stay
          cli_evt: ['sso'], // set explicitly (not the old default): left alone
          cli_wl: WHITE_LABEL,
        });
        const families = await client.query<{ id: string; scopes: string[] }>(
          'select id, scopes from token_families order by id',
        );
        expect(Object.fromEntries(families.rows.map((r) => [r.id, r.scopes]))).toEqual({
          fam_dsp: [],
          fam_dsp_sso: [],
          fam_dsp_org: ['menu'],
          fam_evt_org: ['sso'],
          fam_wl_org: ['billing'],
          fam_evt: ['sso'],
          fam_pos: ['menu', 'orders'],
          fam_wl: WHITE_LABEL,
        });
      } finally {
        await client.close();
      }
    },
  );
});
