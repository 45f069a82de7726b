import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/errors.ts';
import { hmacHex, safeEqual } from '../http/secrets.ts';
import { findPartner, webhookSecretOf, type Partner } from '../partners/service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The partner whose webhook signature verified (routes with `webhook-signature` security). */
    partner?: Partner;
  }
}

export const SIGNATURE_HEADER = 'Stream-Webhook-Signature';

// The spec says lower-case hex; upper-case carries the same digest, so it is accepted too.
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;

export type SignatureProblem = 'signature_missing' | 'signature_malformed' | 'signature_mismatch';

/** Checks the header's shape alone (no secret needed), so a bad header is refused before any lookup. */
export function signatureShape(header: string | string[] | undefined): SignatureProblem | undefined {
  if (header === undefined || header === '') return 'signature_missing';
  if (typeof header !== 'string' || !HEX_DIGEST.test(header)) return 'signature_malformed';
  return undefined;
}

/** Verifies a hex HMAC-SHA256 of the exact raw bytes, in constant time. */
export function verifySignature(
  secret: string,
  rawBody: Buffer,
  header: string | string[] | undefined,
): SignatureProblem | undefined {
  const shape = signatureShape(header);
  if (shape) return shape;
  return safeEqual((header as string).toLowerCase(), hmacHex(secret, rawBody))
    ? undefined
    : 'signature_mismatch';
}

const MESSAGES: Record<SignatureProblem, string> = {
  signature_missing: `Send the ${SIGNATURE_HEADER} header: the hex HMAC-SHA256 of the raw body, keyed with your webhook secret.`,
  signature_malformed: `${SIGNATURE_HEADER} must be exactly 64 hex characters (an HMAC-SHA256 digest), with no prefix or timestamp.`,
  signature_mismatch: `${SIGNATURE_HEADER} does not match the HMAC-SHA256 of the raw body with your webhook secret. Sign the exact bytes you send, not re-serialised JSON.`,
};

/**
 * The `webhook-signature` security handler: the partner comes from the route's `partner_id` or
 * `partner_slug`, and the signature is checked over `req.rawBody` (the bytes as received, before
 * JSON parsing). On success `req.partner` is set.
 */
export function registerWebhookSignatures(app: FastifyInstance): void {
  app.securityHandlers.set('webhook-signature', () => async (req) => {
    const header = req.headers[SIGNATURE_HEADER.toLowerCase()];
    const shape = signatureShape(header);
    if (shape) throw new ApiError(shape, MESSAGES[shape]);
    const params = (req.params ?? {}) as Record<string, string | undefined>;
    const ref = params.partner_id ?? params.partner_slug;
    const partner = ref ? await findPartner(app.ctx.db, ref) : undefined;
    if (!partner)
      throw new ApiError(
        'unknown_partner',
        `No partner "${ref ?? ''}" exists; check the URL you were given.`,
      );
    const problem = verifySignature(
      webhookSecretOf(app.ctx.config.encryptionKey, partner),
      req.rawBody ?? Buffer.alloc(0),
      header,
    );
    if (problem) throw new ApiError(problem, MESSAGES[problem]);
    req.partner = partner;
  });
}
