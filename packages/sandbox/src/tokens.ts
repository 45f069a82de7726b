import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SandboxKind } from './options.ts';

export type TokenUse = 'code' | 'access' | 'refresh';

/** What a code or token carries. Nothing is stored: the HMAC is the proof, so tokens survive a restart. */
export interface TokenClaims {
  use: TokenUse;
  /** Which simulator issued it: a POS token is no good at the DSP. */
  kind: SandboxKind;
  account: string;
  client: string;
  iat: number;
  exp: number;
  /** Makes every token unique (codes are single use by this value). */
  nonce: string;
  /** Codes only: the redirect_uri of the authorize request. */
  redirect_uri?: string;
}

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; reason: 'invalid' | 'expired' };

const PREFIX: Record<TokenUse, string> = { code: 'sbx_ac', access: 'sbx_at', refresh: 'sbx_rt' };

export class TokenSigner {
  constructor(
    private readonly secret: string,
    private readonly kind: SandboxKind,
  ) {}

  issue(
    use: TokenUse,
    fields: { account: string; client: string; ttlMs: number; redirect_uri?: string },
  ): {
    token: string;
    claims: TokenClaims;
  } {
    const iat = Date.now();
    const claims: TokenClaims = {
      use,
      kind: this.kind,
      account: fields.account,
      client: fields.client,
      iat,
      exp: iat + fields.ttlMs,
      nonce: randomBytes(9).toString('base64url'),
      ...(fields.redirect_uri !== undefined ? { redirect_uri: fields.redirect_uri } : {}),
    };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return { token: `${PREFIX[use]}.${payload}.${this.mac(payload)}`, claims };
  }

  verify(use: TokenUse, token: string, now = Date.now()): TokenCheck {
    const [prefix, payload, mac, extra] = token.split('.');
    if (prefix !== PREFIX[use] || !payload || !mac || extra !== undefined)
      return { ok: false, reason: 'invalid' };
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      return { ok: false, reason: 'invalid' };
    let claims: TokenClaims;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    if (claims.use !== use || claims.kind !== this.kind) return { ok: false, reason: 'invalid' };
    if (!(claims.exp > now)) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }
}
