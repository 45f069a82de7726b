import type { Operation, Security } from '../operation.ts';
import type { JsonObject } from './schemas.ts';

type SchemeKind = Exclude<Security['kind'], 'none'>;

const SCHEME_NAMES = {
  bearer: 'bearerAuth',
  'webhook-signature': 'webhookSignature',
  'event-signature': 'eventSignature',
  'merchant-bearer': 'merchantBearer',
  'client-credentials': 'clientCredentials',
} as const satisfies Record<SchemeKind, string>;

/** The operation's `security`: bearer tokens list their scopes; open operations say so with `[]`. */
export function securityRequirement(security: Security): JsonObject[] {
  if (security.kind === 'none') return [];
  const scopes = security.kind === 'bearer' ? [...security.scopes] : [];
  return [{ [SCHEME_NAMES[security.kind]]: scopes }];
}

/** `components.securitySchemes`: only the schemes these operations use, so a reader sees no others. */
export function securitySchemes(ops: readonly Operation[]): Record<string, JsonObject> {
  const schemes: Record<string, JsonObject> = {};
  for (const op of ops) {
    if (op.security.kind === 'none') continue;
    schemes[SCHEME_NAMES[op.security.kind]] ??= scheme(op.security.kind, ops);
  }
  return schemes;
}

function scheme(kind: SchemeKind, ops: readonly Operation[]): JsonObject {
  switch (kind) {
    case 'bearer':
      return {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'A Partner API access token (a JWT) from `POST /oauth/token`, sent as `Authorization: Bearer <token>`. ' +
          'It lasts `expires_in` seconds (at most one hour); refresh it with the refresh token. ' +
          'The token must carry the scopes listed on each endpoint.' +
          scopeList(ops),
      };
    case 'webhook-signature':
      return {
        type: 'apiKey',
        in: 'header',
        name: 'Stream-Webhook-Signature',
        description:
          'Lower-case hex HMAC-SHA256 of the exact raw request body, keyed with your webhook secret. ' +
          'No timestamp, no prefix. Sign the bytes you send, not a re-serialisation.',
      };
    case 'event-signature':
      return {
        type: 'apiKey',
        in: 'header',
        name: 'X-Stream-Signature',
        description:
          'The platform signs every event it sends you: lower-case hex HMAC-SHA256 of the raw body, keyed ' +
          'with your webhook secret. Verify it over the raw bytes, comparing in constant time.',
      };
    case 'merchant-bearer':
      return {
        type: 'http',
        scheme: 'bearer',
        description:
          'The merchant access token your token endpoint issued the platform, sent as ' +
          '`Authorization: Bearer <access_token>`. The platform refreshes it before `expire_time`.',
      };
    case 'client-credentials': {
      // OpenAPI has no scheme for credentials in the body; the client-credentials flow is the nearest.
      const tokenOp = ops.find((op) => op.security.kind === 'client-credentials');
      return {
        type: 'oauth2',
        description:
          '`client_id` and `client_secret` travel in the request body of the token request (JSON or ' +
          'form-encoded), not in a header: see the request body schema.',
        flows: { clientCredentials: { tokenUrl: tokenOp?.path ?? '/oauth/token', scopes: {} } },
      };
    }
  }
}

/** One line per scope: the operations that need it, so the list never drifts from the routes. */
function scopeList(ops: readonly Operation[]): string {
  const byScope = new Map<string, string[]>();
  for (const op of ops) {
    if (op.security.kind !== 'bearer') continue;
    for (const scope of op.security.scopes)
      byScope.set(scope, [...(byScope.get(scope) ?? []), op.operationId]);
  }
  const lines = [...byScope].map(
    ([scope, ids]) => `- \`${scope}\`: ${ids.map((id) => `\`${id}\``).join(', ')}`,
  );
  return lines.length ? `\n\nScopes and the operations that need them:\n\n${lines.join('\n')}` : '';
}
