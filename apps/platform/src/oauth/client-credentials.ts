import { ApiError } from '../http/errors.ts';

/**
 * The client's credentials of a token request: from `Authorization: Basic` (RFC 6749 section
 * 2.3.1, which servers must support and most OAuth libraries send by default; id and secret each
 * form-urlencoded before base64) or from the body, never both.
 */
const BASIC = /^basic(?:\s+(\S*))?\s*$/i;

/** Whether the client tried HTTP Basic (RFC 6749 section 5.2: then a refusal carries its challenge). */
export const usesBasic = (authorization: string | undefined): boolean => BASIC.test(authorization ?? '');

export function clientCredentials(
  authorization: string | undefined,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
): { client_id: string; client_secret: string } {
  const basic = BASIC.exec(authorization ?? '');
  if (basic) {
    if (body.client_id !== undefined || body.client_secret !== undefined) {
      throw new ApiError(
        'validation_failed',
        'Send the client credentials once: in Authorization: Basic or as client_id and client_secret in the body, not both.',
        [{ path: 'headers.authorization', message: 'credentials also in the body' }],
      );
    }
    const encoded = basic[1] ?? '';
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const pair = /^[A-Za-z0-9+/]*={0,2}$/.test(encoded) && colon > 0 ? formDecode(decoded, colon) : undefined;
    if (!pair?.[0] || !pair[1])
      throw new ApiError(
        'invalid_client',
        'Authorization: Basic must hold base64("client_id:client_secret"), each form-urlencoded.',
      );
    return { client_id: pair[0], client_secret: pair[1] };
  }
  const missing = (['client_id', 'client_secret'] as const).filter((k) => !body[k]);
  if (missing.length > 0) {
    throw new ApiError(
      'validation_failed',
      `body.${missing[0]}: required (or send both as Authorization: Basic).`,
      missing.map((k) => ({ path: `body.${k}`, message: 'required (or send both as Authorization: Basic)' })),
    );
  }
  return { client_id: body.client_id!, client_secret: body.client_secret! };
}

function formDecode(decoded: string, colon: number): [string, string] | undefined {
  try {
    const part = (s: string) => decodeURIComponent(s.replaceAll('+', ' '));
    return [part(decoded.slice(0, colon)), part(decoded.slice(colon + 1))];
  } catch {
    return undefined; // a malformed %-escape
  }
}
