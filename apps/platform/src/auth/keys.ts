import { desc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { ACCESS_TOKEN_MAX_SECONDS, type Jwk } from '@stream/contracts/apis/partner/index';
import type { Db } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { signingKeys } from '../db/schema/index.ts';
import { ConfigError } from '../config.ts';
import { decrypt, encrypt } from '../http/secrets.ts';

export const SIGNING_ALG = 'ES256';
/** How long a process trusts its idea of the current signing key, so all processes converge after a rotation. */
export const SIGNER_REFRESH_MS = 60_000;
/**
 * A retired key stays in the JWKS until no token it signed can still be valid: the longest token
 * lifetime, plus the time other processes may go on signing with it, plus a minute of clock skew.
 */
export const RETIRED_KEY_PUBLISHED_MS = ACCESS_TOKEN_MAX_SECONDS * 1000 + SIGNER_REFRESH_MS + 60_000;
const KID = /^[A-Za-z0-9_-]{1,64}$/;
/** Serialises key creation and rotation across processes (pg_advisory_xact_lock). */
const KEYS_LOCK = 727_275;

export interface Signer {
  kid: string;
  key: CryptoKey;
}

async function newKeyRow(encryptionKey: Buffer) {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = newId('key');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  const privateJwk = await exportJWK(privateKey);
  return {
    kid,
    alg: SIGNING_ALG,
    privateJwkEnc: encrypt(encryptionKey, JSON.stringify(privateJwk)),
    publicJwk,
  };
}

/** Creates the first signing key unless one is active; safe when several processes start at once. */
export async function ensureSigningKey(db: Db, encryptionKey: Buffer): Promise<void> {
  const active = await db
    .select({ kid: signingKeys.kid, enc: signingKeys.privateJwkEnc })
    .from(signingKeys)
    .where(isNull(signingKeys.retiredAt))
    .limit(1);
  if (active[0]) {
    // Fail at start, not on every request, when the database was encrypted with another key.
    try {
      decrypt(encryptionKey, active[0].enc);
    } catch {
      throw new ConfigError(
        'ENCRYPTION_KEY does not match the key this database was encrypted with. Use the original ' +
          'ENCRYPTION_KEY (or DATA_DIR/encryption.key) for this database.',
      );
    }
    return;
  }
  const row = await newKeyRow(encryptionKey);
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${KEYS_LOCK})`);
    const again = await tx
      .select({ kid: signingKeys.kid })
      .from(signingKeys)
      .where(isNull(signingKeys.retiredAt))
      .limit(1);
    if (!again.length) await tx.insert(signingKeys).values(row);
  });
}

/**
 * Adds a new signing key and retires the current one from signing. The retired key stays in the
 * JWKS (and keeps verifying) until every token it signed has expired, so nothing breaks. This
 * process switches at once; others within SIGNER_REFRESH_MS.
 */
export async function rotateSigningKey(
  db: Db,
  encryptionKey: Buffer,
): Promise<{ kid: string; retired: string[] }> {
  const row = await newKeyRow(encryptionKey);
  const retired = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${KEYS_LOCK})`);
    const old = await tx
      .update(signingKeys)
      .set({ retiredAt: sql`now()` })
      .where(isNull(signingKeys.retiredAt))
      .returning({ kid: signingKeys.kid });
    await tx.insert(signingKeys).values(row);
    return old.map((k) => k.kid);
  });
  stores.get(db)?.forgetSigner();
  return { kid: row.kid, retired };
}

/** The public keys that may still have signed a valid token, newest first (the JWKS). */
export async function publishedKeys(db: Db): Promise<Jwk[]> {
  const rows = await db
    .select({ jwk: signingKeys.publicJwk })
    .from(signingKeys)
    .where(
      or(
        isNull(signingKeys.retiredAt),
        gt(signingKeys.retiredAt, sql`now() - (${RETIRED_KEY_PUBLISHED_MS / 1000} * interval '1 second')`),
      ),
    )
    .orderBy(desc(signingKeys.createdAt), desc(signingKeys.kid));
  return rows.map((r) => r.jwk as Jwk);
}

/**
 * Imported keys of one database. Keys never change once written, so public keys are cached by
 * kid for good; only "which key signs now" is re-read every SIGNER_REFRESH_MS.
 */
export class SigningKeys {
  private verifiers = new Map<string, CryptoKey>();
  private signer: { value: Signer; readAt: number } | undefined;
  private loading: Promise<Signer> | undefined;

  constructor(
    private readonly db: Db,
    private readonly encryptionKey: Buffer,
  ) {}

  /** The key to sign with now. Call it outside any transaction (it may query the outer db). */
  async current(): Promise<Signer> {
    if (this.signer && Date.now() - this.signer.readAt < SIGNER_REFRESH_MS) return this.signer.value;
    this.loading ??= this.loadSigner().finally(() => (this.loading = undefined));
    return this.loading;
  }

  /** The public key with this kid, or undefined when there is none. */
  async verifier(kid: string): Promise<CryptoKey | undefined> {
    const cached = this.verifiers.get(kid);
    // The kid is read before the signature is checked: only a well-formed one may reach a query.
    if (cached || !KID.test(kid)) return cached;
    const [row] = await this.db
      .select({ jwk: signingKeys.publicJwk })
      .from(signingKeys)
      .where(eq(signingKeys.kid, kid));
    if (!row) return undefined;
    const key = (await importJWK(row.jwk as JWK, SIGNING_ALG)) as CryptoKey;
    this.verifiers.set(kid, key);
    return key;
  }

  forgetSigner(): void {
    this.signer = undefined;
  }

  private async loadSigner(): Promise<Signer> {
    const [row] = await this.db
      .select({ kid: signingKeys.kid, enc: signingKeys.privateJwkEnc })
      .from(signingKeys)
      .where(isNull(signingKeys.retiredAt))
      .orderBy(desc(signingKeys.createdAt), desc(signingKeys.kid))
      .limit(1);
    if (!row) throw new Error('No active signing key: ensureSigningKey was not run');
    const value =
      this.signer?.value.kid === row.kid
        ? this.signer.value
        : {
            kid: row.kid,
            key: (await importJWK(
              JSON.parse(decrypt(this.encryptionKey, row.enc)),
              SIGNING_ALG,
            )) as CryptoKey,
          };
    this.signer = { value, readAt: Date.now() };
    return value;
  }
}

const stores = new WeakMap<Db, SigningKeys>();

/** The one key cache of a database in this process (so a rotation here is seen at once). */
export function signingKeysFor(db: Db, encryptionKey: Buffer): SigningKeys {
  let store = stores.get(db);
  if (!store) stores.set(db, (store = new SigningKeys(db, encryptionKey)));
  return store;
}
