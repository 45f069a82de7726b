import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The HMAC signatures of the wire notes ("Signing"), checked by the platform (`Stream-Webhook-Signature`
 * on webhooks partners send) and by the sandbox's event provider (`X-Stream-Signature` on events the
 * platform sends): lower-case hex HMAC-SHA256 of the exact bytes, keyed with the UTF-8 secret.
 */
export function hmacHex(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

export type SignatureProblem = 'signature_missing' | 'signature_malformed' | 'signature_mismatch';

// The spec says lower-case hex; upper-case carries the same digest, so it is accepted too.
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;

/** Checks the header's shape alone (no secret needed), so a bad header is refused before any lookup. */
export function signatureShape(header: string | string[] | undefined): SignatureProblem | undefined {
  if (header === undefined || header === '') return 'signature_missing';
  if (typeof header !== 'string' || !HEX_DIGEST.test(header)) return 'signature_malformed';
  return undefined;
}

/** Verifies a hex HMAC-SHA256 of the exact raw bytes, in constant time; undefined when it holds. */
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

/** The Content-Types a webhook may be sent as: `application/json` or a `+json` kind, any parameters. */
export const isJsonContentType = (value: string | undefined) =>
  value !== undefined && /^application\/(?:json|[\w.-]+\+json)\s*(?:;.*)?$/i.test(value);
