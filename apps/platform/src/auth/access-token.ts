import { randomUUID } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';
import { Scope } from '@stream/contracts/common';
import { SIGNING_ALG, type Signer, type SigningKeys } from './keys.ts';
import { BoundedMap } from '../shared/bounded-map.ts';

/** Who a Partner API access token speaks for. */
export interface PartnerAuth {
  partnerId: string;
  /** The API client the token was issued to (a root client or a partner token). */
  clientId: string;
  /** Set when the token comes from a partner token: it then only sees this organisation. */
  orgId: string | null;
  scopes: Scope[];
  /** The token family (`fam` claim): revoking it kills every token of one grant. */
  familyId: string;
  /**
   * Only on requests whose revocation check is folded into the service's own query (see
   * `bearer.ts`, FOLDED_REVOCATION): the service reports the answer with `settleRevocation`.
   */
  revocation?: PendingRevocation;
}

/** Whether the token of one request is known to be live (unrevoked family and client). */
export interface PendingRevocation {
  state: 'unknown' | 'live' | 'revoked';
}

/** RFC 9068 access-token type, so no other JWT we might ever sign passes as one. */
const TYP = 'at+jwt';

export async function signAccessToken(
  signer: Signer,
  issuer: string,
  auth: PartnerAuth,
  lifetimeSeconds: number,
  issuedAt = Math.floor(Date.now() / 1000),
): Promise<string> {
  return new SignJWT({
    partner_id: auth.partnerId,
    ...(auth.orgId ? { org_id: auth.orgId } : {}),
    scope: auth.scopes.join(' '),
    fam: auth.familyId,
  })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: signer.kid, typ: TYP })
    .setIssuer(issuer)
    .setSubject(auth.clientId)
    .setJti(randomUUID())
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + lifetimeSeconds)
    .sign(signer.key);
}

/** Raised for any token that is not a valid, unexpired access token of this platform. */
export class AccessTokenError extends Error {
  constructor(readonly reason: 'invalid' | 'expired') {
    super(
      reason === 'expired'
        ? 'The access token has expired; request a new one.'
        : 'The access token is not valid.',
    );
  }
}

/**
 * Access tokens whose signature, issuer, type and claims were already checked, by token string,
 * with their `exp`. A token's validity apart from expiry and revocation is a pure function of its
 * bytes and of the public key its `kid` names, and keys never change once written, so a hit is as
 * good as a fresh ES256 verification in every process; expiry is checked on every hit and
 * revocation is not cached at all (the bearer handler asks the database every time). Bounded:
 * only tokens that passed verification enter, and the oldest entry leaves when it is full.
 */
export class VerifiedTokens {
  private readonly entries: BoundedMap<string, { auth: PartnerAuth; exp: number }>;

  constructor(readonly capacity = 10_000) {
    this.entries = new BoundedMap(capacity);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The claims of a token verified before, or undefined; throws AccessTokenError('expired') once it has expired. */
  get(token: string, nowSeconds = Math.floor(Date.now() / 1000)): PartnerAuth | undefined {
    const hit = this.entries.get(token);
    if (!hit) return undefined;
    // jose's rule (no clock tolerance): expired when exp <= now.
    if (hit.exp <= nowSeconds) {
      this.entries.delete(token);
      throw new AccessTokenError('expired');
    }
    return hit.auth;
  }

  set(token: string, auth: PartnerAuth, exp: number): void {
    this.entries.set(token, { auth, exp });
  }
}

/**
 * `verifyAccessToken` through a cache of tokens already verified (see VerifiedTokens): the
 * ES256 check runs once per token and process, not once per request.
 */
export async function verifyAccessTokenCached(
  cache: VerifiedTokens,
  keys: SigningKeys,
  issuer: string,
  token: string,
): Promise<PartnerAuth> {
  const hit = cache.get(token);
  if (hit) return hit;
  const { auth, exp } = await verifyAccessTokenClaims(keys, issuer, token);
  // One object serves every request bearing this token: no handler may change it.
  Object.freeze(auth.scopes);
  cache.set(token, Object.freeze(auth), exp);
  return auth;
}

/** Checks signature, issuer, type and expiry; answers the claims. Revocation is the caller's check. */
export async function verifyAccessToken(
  keys: SigningKeys,
  issuer: string,
  token: string,
): Promise<PartnerAuth> {
  return (await verifyAccessTokenClaims(keys, issuer, token)).auth;
}

async function verifyAccessTokenClaims(
  keys: SigningKeys,
  issuer: string,
  token: string,
): Promise<{ auth: PartnerAuth; exp: number }> {
  let payload;
  try {
    ({ payload } = await jwtVerify(
      token,
      async (header) => {
        const key = header.kid ? await keys.verifier(header.kid) : undefined;
        if (!key) throw new errors.JWKSNoMatchingKey();
        return key;
      },
      { issuer, algorithms: [SIGNING_ALG], typ: TYP, requiredClaims: ['sub', 'exp', 'iat'] },
    ));
  } catch (err) {
    if (err instanceof errors.JWTExpired) throw new AccessTokenError('expired');
    if (err instanceof errors.JOSEError || err instanceof TypeError) throw new AccessTokenError('invalid');
    throw err;
  }
  const { sub, partner_id, org_id, scope, fam, exp } = payload;
  const scopes = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [];
  if (
    typeof sub !== 'string' ||
    typeof partner_id !== 'string' ||
    typeof fam !== 'string' ||
    typeof exp !== 'number' ||
    (org_id !== undefined && typeof org_id !== 'string') ||
    !scopes.every((s) => Scope.safeParse(s).success)
  ) {
    throw new AccessTokenError('invalid');
  }
  return {
    auth: {
      partnerId: partner_id,
      clientId: sub,
      orgId: org_id ?? null,
      scopes: scopes as Scope[],
      familyId: fam,
    },
    exp,
  };
}
