import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import { requestAccessToken } from '../auth/testing.ts';
import { decrypt } from '../http/secrets.ts';
import { findPartner } from '../partners/service.ts';
import { sandboxCredentials } from '../sandbox-bootstrap.ts';
import {
  bind,
  createIntegration,
  createOrg,
  ingest,
  query,
  sandboxCode,
  startOnboardingWorld,
  waitForLocation,
  type OnboardingWorld,
} from './testing.ts';

/**
 * After the onboarding journey (OAuth with the sandbox POS and DSP, a token refresh, ingest, bind,
 * APPROVED), no secret a partner or merchant holds appears in clear in any column of any table:
 * the delivery log redacts what the contracts mark secret, and the rest is stored hashed or
 * encrypted.
 */

let world: OnboardingWorld;
beforeAll(async () => {
  world = await startOnboardingWorld();
});
afterAll(() => world?.stop());

/** The merchant tokens the platform holds now, decrypted. */
async function merchantTokens(): Promise<string[]> {
  const rows = await query<{ a: string | null; r: string | null }>(
    world,
    sql`select access_token_enc as a, refresh_token_enc as r from integrations`,
  );
  const key = world.platform.config.encryptionKey;
  return rows.flatMap((row) => [row.a, row.r].filter((v): v is string => !!v).map((v) => decrypt(key, v)));
}

/** Every column of every table, as text: `table.column` -> values. */
async function everyColumn(): Promise<{ where: string; text: string }[]> {
  const columns = await query<{ s: string; t: string; c: string }>(
    world,
    sql`select c.table_schema as s, c.table_name as t, c.column_name as c
        from information_schema.columns c
        join information_schema.tables t using (table_schema, table_name)
        where t.table_type = 'BASE TABLE' and c.table_schema not in ('pg_catalog', 'information_schema')`,
  );
  const out: { where: string; text: string }[] = [];
  for (const { s, t, c } of columns) {
    const rows = await query<{ v: string | null }>(
      world,
      sql`select ${sql.identifier(c)}::text as v from ${sql.identifier(s)}.${sql.identifier(t)}`,
    );
    for (const { v } of rows) if (v) out.push({ where: `${s}.${t}.${c}`, text: v });
  }
  return out;
}

describe('secrets at rest after the onboarding journey', () => {
  it('stores no partner or merchant secret in clear in any table', async () => {
    const secrets: Record<string, string> = {};
    const creds = await world.platform.partner();
    secrets['partner client_secret'] = creds.client_secret;
    secrets['partner webhook_secret'] = creds.webhook_secret;
    const partnerTokens = await requestAccessToken(world.url, creds);
    secrets['partner access token'] = partnerTokens.access_token;
    secrets['partner refresh token'] = partnerTokens.refresh_token;
    const token = partnerTokens.access_token;
    const key = world.platform.config.encryptionKey;
    for (const slug of ['sandbox-pos', 'sandbox-dsp']) {
      const sandbox = await sandboxCredentials(
        world.platform.app.ctx.db,
        key,
        (await findPartner(world.platform.app.ctx.db, slug))!,
      );
      secrets[`${slug} client_secret`] = sandbox!.client_secret;
      secrets[`${slug} webhook_secret`] = sandbox!.webhook_secret;
      secrets[`${slug} OAuth client secret (the platform's, at the sandbox)`] = sandbox!.oauth_client_secret!;
    }

    // Both integrations over OAuth, with codes the test sees.
    const orgId = await createOrg(world, token);
    const ids: Record<'pos' | 'dsp', string> = { pos: '', dsp: '' };
    for (const type of ['pos', 'dsp'] as const) {
      const { _id } = await createIntegration(world, token, orgId, type);
      const code = await sandboxCode(world, type);
      secrets[`${type} authorization code`] = code;
      const res = await call('PUT', `${world.url}/onboarding/integrations/${_id}`, { token, body: { code } });
      expect(res.status, res.text).toBe(200);
      ids[type] = _id;
    }
    const before = await merchantTokens();
    for (const [i, t] of before.entries()) secrets[`merchant token ${i}`] = t;

    // A refresh: the POS tokens are due, so the listing behind ingest exchanges the refresh token.
    await query(
      world,
      sql`update integrations set expires_at = now() - interval '1 hour' where id = ${ids.pos}`,
    );
    const [location] = await ingest(world, token, ids.pos, ['loc-mission']);
    const after = (await merchantTokens()).filter((t) => !before.includes(t));
    expect(after).toHaveLength(2); // new access and refresh tokens
    for (const [i, t] of after.entries()) secrets[`merchant token after refresh ${i}`] = t;

    const bound = await bind(world, token, ids.dsp, [
      { pos_location_id: location!._id, dsp_provider_id: 'store-1001' },
    ]);
    expect(bound.status, bound.text).toBe(200);
    await waitForLocation(
      world,
      token,
      orgId,
      location!._id,
      (l) => l.dsps[0]?.status === 'APPROVED',
      'APPROVED',
    );

    const cells = await everyColumn();
    // The scan sees what it should: the token exchanges are logged, with their secrets redacted.
    const tokenCalls = cells.filter(
      (c) => c.where.endsWith('delivery_attempts.request_body') && c.text.includes('grant_type'),
    );
    expect(tokenCalls.map((c) => c.text.includes('"client_secret":"[redacted]"'))).toContain(true);
    expect(tokenCalls.some((c) => c.text.includes('"refresh_token":"[redacted]"'))).toBe(true);
    expect(tokenCalls.some((c) => c.text.includes('"code":"[redacted]"'))).toBe(true);
    expect(
      cells.some(
        (c) =>
          c.where.endsWith('delivery_attempts.response_excerpt') &&
          c.text.includes('"access_token":"[redacted]"'),
      ),
    ).toBe(true);
    expect(cells.some((c) => c.text.includes(orgId))).toBe(true);

    const found = Object.entries(secrets).flatMap(([name, value]) =>
      cells.filter((c) => c.text.includes(value)).map((c) => `${name} in ${c.where}`),
    );
    expect(found).toEqual([]);
  });
});
