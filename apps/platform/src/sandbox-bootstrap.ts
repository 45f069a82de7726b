import { createHmac } from 'node:crypto';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { AppContext } from './context.ts';
import type { DbOrTx } from './db/client.ts';
import { newId } from './db/ids.ts';
import { apiClients, partners } from './db/schema/index.ts';
import { decrypt, encrypt, newSecret } from './http/secrets.ts';
import {
  createPartner,
  findPartner,
  webhookSecretOf,
  type Partner,
  type PartnerCredentials,
} from './partners/service.ts';

/** The three simulated partners `npm start` mounts and registers (slug, kind and where they are mounted). */
export const SANDBOX_PARTNERS = [
  { kind: 'pos', slug: 'sandbox-pos', name: 'Sandbox POS', path: '/sandbox/pos', merchantOAuth: true },
  { kind: 'dsp', slug: 'sandbox-dsp', name: 'Sandbox DSP', path: '/sandbox/dsp', merchantOAuth: true },
  {
    kind: 'events',
    slug: 'sandbox-events',
    name: 'Sandbox event provider',
    path: '/sandbox/events',
    merchantOAuth: false,
  },
] as const;
export type SandboxPartnerSpec = (typeof SANDBOX_PARTNERS)[number];

/** What `partners.settings` holds for a sandbox partner. */
interface SandboxSettings {
  sandbox: true;
  /**
   * The root client secret, encrypted. A real partner's is only stored hashed; a sandbox partner's
   * is kept so a developer who missed the start-up banner can read it again.
   */
  client_secret_enc?: string;
}

/** Everything a developer needs to act as a sandbox partner against the platform. */
export interface SandboxCredentials extends PartnerCredentials {
  base_url: string | null;
  /** The OAuth client the simulated POS or DSP issued to the platform (absent for events). */
  oauth_client_id: string | null;
  oauth_client_secret: string | null;
}

/** Signs the sandbox's codes and tokens: derived from the encryption key, so stable across restarts. */
export function sandboxTokenSecret(encryptionKey: Buffer): string {
  return createHmac('sha256', encryptionKey).update('stream-sandbox/token-secret/v1').digest('base64url');
}

export const isSandboxPartner = (partner: Partner): boolean => partner.settings?.sandbox === true;

const baseUrlOf = (publicUrl: string, spec: SandboxPartnerSpec) =>
  publicUrl ? `${publicUrl}${spec.path}` : null;

/**
 * Registers the sandbox partners that are missing and points their base URLs at this platform's
 * PUBLIC_URL (it may change between starts). Answers the credentials of the ones it created,
 * printed once unless the log level is silent. Safe with several processes starting at once.
 */
export async function ensureSandboxPartners(
  ctx: AppContext,
  print: (text: string) => void = (text) => process.stdout.write(text),
): Promise<SandboxCredentials[]> {
  const { config } = ctx;
  const created = await ctx.db.transaction(async (tx) => {
    // Serialise concurrent starts on one PostgreSQL (a no-op wait on PGlite's single connection).
    await tx.execute(sql`select pg_advisory_xact_lock(727275)`);
    const out: SandboxCredentials[] = [];
    for (const spec of SANDBOX_PARTNERS) {
      const baseUrl = baseUrlOf(config.publicUrl, spec);
      const existing = await findPartner(tx, spec.slug);
      if (existing) {
        if (baseUrl && existing.baseUrl !== baseUrl) {
          await tx.update(partners).set({ baseUrl }).where(eq(partners.id, existing.id));
        }
        continue;
      }
      out.push(await createSandboxPartner(tx, config.encryptionKey, spec, baseUrl));
    }
    return out;
  });
  if (created.length && config.logLevel !== 'silent') print(banner(created));
  return created;
}

async function createSandboxPartner(
  tx: DbOrTx,
  key: Buffer,
  spec: SandboxPartnerSpec,
  baseUrl: string | null,
): Promise<SandboxCredentials> {
  const oauth = spec.merchantOAuth ? { id: newId('sbxcli'), secret: newSecret('sbxsec') } : undefined;
  const credentials = await createPartner(tx, key, {
    kind: spec.kind,
    slug: spec.slug,
    name: spec.name,
    baseUrl: baseUrl ?? undefined,
    oauthClientId: oauth?.id,
    oauthClientSecret: oauth?.secret,
  });
  const settings: SandboxSettings = {
    sandbox: true,
    client_secret_enc: encrypt(key, credentials.client_secret),
  };
  await tx
    .update(partners)
    .set({ settings: { ...settings } })
    .where(eq(partners.id, credentials.partner_id));
  return {
    ...credentials,
    base_url: baseUrl,
    oauth_client_id: oauth?.id ?? null,
    oauth_client_secret: oauth?.secret ?? null,
  };
}

/** The credentials of a sandbox partner, read back (for `partners list`); undefined for any other partner. */
export async function sandboxCredentials(
  db: DbOrTx,
  key: Buffer,
  partner: Partner,
): Promise<SandboxCredentials | undefined> {
  if (!isSandboxPartner(partner)) return undefined;
  const settings = partner.settings as unknown as SandboxSettings;
  const [client] = await db
    .select({ id: apiClients.id })
    .from(apiClients)
    .where(and(eq(apiClients.partnerId, partner.id), isNull(apiClients.orgId), isNull(apiClients.revokedAt)))
    .orderBy(asc(apiClients.createdAt))
    .limit(1);
  return {
    partner_id: partner.id,
    slug: partner.slug,
    kind: partner.kind,
    client_id: client?.id ?? '',
    client_secret: settings.client_secret_enc ? decrypt(key, settings.client_secret_enc) : '',
    webhook_secret: webhookSecretOf(key, partner),
    base_url: partner.baseUrl,
    oauth_client_id: partner.oauthClientId,
    oauth_client_secret: partner.oauthClientSecretEnc ? decrypt(key, partner.oauthClientSecretEnc) : null,
  };
}

/**
 * What a mounted simulator's control routes (`/_sandbox/...`) accept as HTTP Basic: the sandbox
 * partner's own credentials, i.e. the OAuth client it issued to Stream (`oauth_client_id` and
 * `oauth_client_secret`; the POS and the DSP) and its Partner API client (`client_id` and
 * `client_secret`; all three). Nobody else's: another partner cannot steer or read it.
 */
export async function sandboxControlClients(
  db: DbOrTx,
  key: Buffer,
  slug: SandboxPartnerSpec['slug'],
): Promise<{ client_id: string; client_secret: string }[]> {
  const partner = await findPartner(db, slug);
  const creds = partner && (await sandboxCredentials(db, key, partner));
  if (!creds) return [];
  return [
    ...(creds.oauth_client_id && creds.oauth_client_secret
      ? [{ client_id: creds.oauth_client_id, client_secret: creds.oauth_client_secret }]
      : []),
    ...(creds.client_id && creds.client_secret
      ? [{ client_id: creds.client_id, client_secret: creds.client_secret }]
      : []),
  ];
}

function banner(created: SandboxCredentials[]): string {
  const rows = created.flatMap((c) => [
    `  ${c.slug} (${c.kind})  ${c.base_url ?? '(base URL set once the port is known)'}`,
    `    partner_id           ${c.partner_id}`,
    `    client_id            ${c.client_id}`,
    `    client_secret        ${c.client_secret}`,
    `    webhook_secret       ${c.webhook_secret}`,
    ...(c.oauth_client_id
      ? [`    oauth_client_id      ${c.oauth_client_id}`, `    oauth_client_secret  ${c.oauth_client_secret}`]
      : []),
  ]);
  const rule = '='.repeat(78);
  return [
    rule,
    'Sandbox partners registered. Their secrets are printed this once;',
    "`stream-platform partners list` shows them again (it shows no other partner's secrets).",
    ...rows,
    rule,
    '',
  ].join('\n');
}
