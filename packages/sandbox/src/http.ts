import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CodedError, errorBody, type ErrorDetail } from '@stream/contracts/errors';
import { fastifyPath, type BodyOf, type Operation, type QueryOf } from '@stream/contracts/operation';
import type { z } from 'zod';

/**
 * The sandbox answers errors with the platform's error body and codes, so a partner reading the
 * sandbox sees what the docs show. Its own class, not the platform's `ApiError` (apps/platform
 * depends on this package, not the other way round); both extend the contracts' `CodedError`.
 */
export class SandboxError extends CodedError {}

/** The exact bytes of each JSON or form body, for signature checks. */
export const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/**
 * Gives a sandbox scope its own body parsers, error body and 404, so it behaves the same standalone
 * and mounted inside the platform (Fastify keeps these per plugin scope).
 */
export function prepareScope(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', 'application/*+json'],
    { parseAs: 'buffer' },
    (req, body, done) => {
      const raw = body as Buffer;
      rawBodies.set(req, raw);
      if (raw.length === 0) return done(null, undefined);
      try {
        done(
          null,
          JSON.parse(raw.toString('utf8'), (key, value) => (key === '__proto__' ? undefined : value)),
        );
      } catch (err) {
        done(
          new SandboxError('invalid_json', `The body is not valid JSON: ${(err as Error).message}.`),
          undefined,
        );
      }
    },
  );
  // OAuth clients often post token requests as a form.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req, body, done) => {
    rawBodies.set(req, body as Buffer);
    done(null, Object.fromEntries(new URLSearchParams((body as Buffer).toString('utf8'))));
  });

  app.setErrorHandler((err: FastifyError | SandboxError, req, reply) => {
    const send = (status: number, code: string, message: string, details?: ErrorDetail[]) =>
      reply.status(status).send(errorBody(code, message, req.id, details));
    if (err instanceof SandboxError) return send(err.status, err.code, err.message, err.details);
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(413, 'payload_too_large', 'The body is too large.');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(415, 'unsupported_media_type', 'Send the body as application/json.');
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return send(400, 'invalid_json', 'The body is not valid JSON.');
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return send(err.statusCode, err.statusCode === 404 ? 'not_found' : 'validation_failed', err.message);
    }
    req.log.error({ err }, 'sandbox: unhandled error');
    return send(500, 'internal_error', `The sandbox failed unexpectedly; see its log for ${req.id}.`);
  });

  app.setNotFoundHandler((req, reply) => {
    reply
      .status(404)
      .send(
        errorBody('not_found', `The sandbox has no ${req.method} ${req.url.split('?')[0]} route.`, req.id),
      );
  });
}

/** Serves a partner-side contract operation at its path; the handler validates with {@link parse}. */
export function route<O extends Operation>(
  app: FastifyInstance,
  op: O,
  handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
  app.route({ method: op.method, url: fastifyPath(op.path), handler });
}

/** Validates the body and query against the operation's Zod schemas; 400 validation_failed names each bad field. */
export function parse<O extends Operation>(
  op: O,
  req: FastifyRequest,
): { body: BodyOf<O>; query: QueryOf<O> } {
  return {
    body: check(op.request?.body, req.body, 'body') as BodyOf<O>,
    query: check(op.request?.query, req.query, 'query') as QueryOf<O>,
  };
}

export function check(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = result.error.issues.map((i) => ({
    path: [where, ...i.path.map(String)].join('.'),
    message: i.message,
  }));
  throw new SandboxError('validation_failed', `${details[0]?.path}: ${details[0]?.message}`, details);
}

/** The bearer token of a request, or undefined. */
export function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

const SECRET_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);
const SECRET_FIELDS = new Set(['client_secret']);

/** Headers and body as the received log shows them: credentials replaced by `[redacted]`. */
export function redact(req: FastifyRequest): { headers: ReceivedHeaders; body: unknown } {
  const headers: ReceivedHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name] = SECRET_HEADERS.has(name)
      ? String(value).replace(
          /^(\w+\s+)?.*$/,
          (_m, scheme: string | undefined) => `${scheme ?? ''}[redacted]`,
        )
      : value;
  }
  let body: unknown = req.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    body = Object.fromEntries(
      Object.entries(body as Record<string, unknown>).map(([k, v]) => [
        k,
        SECRET_FIELDS.has(k) ? '[redacted]' : v,
      ]),
    );
  } else if (body === undefined && rawBodies.get(req)?.length) {
    body = rawBodies.get(req)?.toString('utf8');
  }
  return { headers, body };
}
type ReceivedHeaders = Record<string, string | string[] | undefined>;
