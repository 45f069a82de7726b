import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PartnerKind } from '@stream/contracts/common';
import { ApiError } from '../http/errors.ts';
import {
  isJsonContentType,
  signatureShape,
  verifySignature,
  type SignatureProblem,
} from '@stream/contracts/server/signature';
import { findPartner, webhookSecretOf, type Partner } from '../partners/service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The partner whose webhook signature verified (routes with `webhook-signature` security). */
    partner?: Partner;
  }
}

export const SIGNATURE_HEADER = 'Stream-Webhook-Signature';

// The check itself is shared with the sandbox's event provider (@stream/contracts/server/signature).
export { signatureShape, verifySignature, type SignatureProblem };

const MESSAGES: Record<SignatureProblem, string> = {
  signature_missing: `Send the ${SIGNATURE_HEADER} header: the hex HMAC-SHA256 of the raw body, keyed with your webhook secret.`,
  signature_malformed: `${SIGNATURE_HEADER} must be exactly 64 hex characters (an HMAC-SHA256 digest), with no prefix or timestamp.`,
  signature_mismatch: `${SIGNATURE_HEADER} does not match the HMAC-SHA256 of the raw body with your webhook secret. Sign the exact bytes you send, not re-serialised JSON.`,
};

/**
 * The `webhook-signature` security handler: the partner comes from the route's `partner_id` or
 * `partner_slug`, and the signature is checked over `req.rawBody` (the bytes as received, before
 * JSON parsing). On success `req.partner` is set. None for an operation whose handler checks it
 * (`checkedBy: 'handler'`).
 */
export function registerWebhookSignatures(app: FastifyInstance): void {
  const check = async (req: FastifyRequest) => {
    // No body at all never reaches the JSON parser: refuse it as unreadable here, before the
    // signature, as the HMAC guide orders the checks (else an empty unsigned POST read as unsigned).
    if (!req.rawBody?.length) {
      if (!isJsonContentType(req.headers['content-type'])) {
        throw new ApiError('unsupported_media_type', 'Send the body as application/json.');
      }
      throw new ApiError('invalid_json', "The body is empty: send the webhook's JSON, signed.");
    }
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
  };
  app.securityHandlers.set('webhook-signature', (security) =>
    security.kind === 'webhook-signature' && security.checkedBy === 'handler' ? undefined : check,
  );
}

/**
 * The partner whose signature verified, when it is of the kind the route is for (a POS posting to
 * the DSP webhook is as unknown there as a stranger: 404 `unknown_partner`).
 */
export function signedPartner(req: FastifyRequest, kind: PartnerKind): Partner {
  const partner = req.partner;
  if (partner?.kind !== kind) {
    throw new ApiError(
      'unknown_partner',
      `This webhook is for ${kind.toUpperCase()} partners; sign it as one and use its own id or slug in the URL.`,
    );
  }
  return partner;
}
