import type { FastifyInstance } from 'fastify';
import { buildSandbox } from '@stream/sandbox';
import { decrypt } from './http/secrets.ts';
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
      }),
      { prefix: spec.path },
    );
  }
}
