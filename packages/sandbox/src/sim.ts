import type { FastifyRequest } from 'fastify';
import { SandboxError, bearerToken } from './http.ts';
import type { ResolvedOptions, SandboxAccount, SandboxKind } from './options.ts';
import type { SandboxState } from './state.ts';
import { TokenSigner } from './tokens.ts';

/** One simulator instance: its options, its in-memory state and its token signer. */
export class Sim {
  readonly signer: TokenSigner;
  private readonly notes = new WeakMap<FastifyRequest, Record<string, unknown>>();

  constructor(
    readonly kind: SandboxKind,
    readonly opts: ResolvedOptions,
    readonly state: SandboxState,
  ) {
    this.signer = new TokenSigner(opts.tokenSecret, kind);
  }

  account(id: string): SandboxAccount | undefined {
    return this.opts.accounts.find((a) => a.id === id);
  }

  /** Where and as whom this simulator sends the platform webhooks, or 409 when it was not told. */
  platform(): { url: string; secret: string; ref: string } {
    const url = this.opts.platformUrl();
    const secret = this.opts.webhookSecret;
    const ref = this.opts.partnerRef();
    if (url && secret && ref) return { url, secret, ref };
    const missing = [!url && 'platformUrl', !secret && 'webhookSecret', !ref && 'partnerRef'].filter(Boolean);
    throw new SandboxError(
      'conflict',
      `This sandbox does not know its platform, so it cannot send webhooks: it was started without ${missing.join(', ')}.`,
    );
  }

  /** Attaches a fact to a request's entry in the received log. */
  note(req: FastifyRequest, key: string, value: unknown): void {
    this.notes.set(req, { ...this.notes.get(req), [key]: value });
  }

  notesOf(req: FastifyRequest): Record<string, unknown> | undefined {
    return this.notes.get(req);
  }

  /** The `merchant-bearer` security: the account the access token was issued for, or 401. */
  authenticate(req: FastifyRequest): SandboxAccount {
    const token = bearerToken(req);
    if (!token)
      throw new SandboxError(
        'missing_token',
        'Send the merchant access token as `Authorization: Bearer <token>`.',
      );
    const check = this.signer.verify('access', token);
    if (!check.ok) {
      throw check.reason === 'expired'
        ? new SandboxError('token_expired', 'The access token has expired; refresh it.')
        : new SandboxError(
            'invalid_token',
            `That is not an access token this sandbox ${this.kind.toUpperCase()} issued.`,
          );
    }
    const { claims } = check;
    const { expire_tokens, tokens_issued_before } = this.state.switches;
    if (expire_tokens || (tokens_issued_before !== null && claims.iat <= tokens_issued_before)) {
      this.note(req, 'expired_by_switch', true);
      throw new SandboxError('token_expired', 'The access token has expired; refresh it.');
    }
    const account = this.account(claims.account);
    if (!account || !this.opts.clients.some((c) => c.client_id === claims.client)) {
      throw new SandboxError(
        'invalid_token',
        'The account or client this token was issued to no longer exists.',
      );
    }
    return account;
  }
}
