import type { FastifyInstance } from 'fastify';
import { buildSandbox } from '@stream/sandbox';
import { sql } from 'drizzle-orm';
import type { DbOrTx } from './db/client.ts';
import { rowsOf } from './db/sql.ts';
import { decrypt } from './http/secrets.ts';
import { menuFileUrl } from './menus/files.ts';
import { findPartner, webhookSecretOf } from './partners/service.ts';
import { SANDBOX_PARTNERS, sandboxControlClients, sandboxTokenSecret } from './sandbox-bootstrap.ts';

/**
 * Mounts the sandbox POS, DSP and event provider under /sandbox/{pos,dsp,events}, each accepting
 * the OAuth client stored on its partner row and knowing its webhook secret. Run
 * `ensureSandboxPartners` first: a sandbox partner missing from the database is not mounted.
 * Their control routes (`/_sandbox/...`) take that sandbox partner's credentials as HTTP Basic
 * (`sandboxControlClients`, read on each control request, so a rotated secret applies at once).
 */
export async function mountSandbox(app: FastifyInstance): Promise<void> {
  const { config, db } = app.ctx;
  const key = config.encryptionKey;
  const tokenSecret = sandboxTokenSecret(key);
  for (const spec of SANDBOX_PARTNERS) {
    const partner = await findPartner(db, spec.slug);
    if (!partner) {
      app.log.warn({ slug: spec.slug }, 'sandbox partner missing: not mounted');
      continue;
    }
    const clients =
      partner.oauthClientId && partner.oauthClientSecretEnc
        ? [{ client_id: partner.oauthClientId, client_secret: decrypt(key, partner.oauthClientSecretEnc) }]
        : [];
    await app.register(
      buildSandbox(spec.kind, {
        clients,
        tokenSecret,
        webhookSecret: webhookSecretOf(key, partner),
        partnerRef: partner.slug,
        platformUrl: () => config.publicUrl || undefined, // filled in after listen when PORT=0
        controlClients: () => sandboxControlClients(db, key, spec.slug),
        // Asked before the DSP's first request: publicUrl is known by then, also with PORT=0.
        ...(spec.kind === 'dsp'
          ? { publishedMenus: () => publishedMenus(db, partner.id, config.publicUrl, key) }
          : {}),
      }),
      { prefix: spec.path },
    );
  }
}

/** The last menu file published to each store of a DSP, for its simulator starting again. */
async function publishedMenus(db: DbOrTx, dspPartnerId: string, publicUrl: string, key: Buffer) {
  const rows = rowsOf<{ id: string; store: string; file: unknown; at: Date | string }>(
    await db.execute(sql`
      select distinct on (b.dsp_provider_id) p.id, b.dsp_provider_id as store, p.file, p.finished_at as at
      from menu_publications p join location_bindings b on b.id = p.binding_id
      where b.dsp_partner_id = ${dspPartnerId} and p.status = 'published' and p.file is not null
      order by b.dsp_provider_id, p.created_at desc`),
  );
  return rows.map((r) => ({
    location_id: r.store,
    download_url: menuFileUrl(publicUrl, key, r.id),
    time: new Date(r.at).toISOString(),
    menu_file: r.file,
  }));
}
