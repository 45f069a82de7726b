import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CodedError } from '@stream/contracts/errors';
import {
  installBodyParsers,
  installErrorHandler,
  noRouteMessage,
  sendError,
} from '@stream/contracts/server/scope';
import { fastifyPath, type BodyOf, type Operation, type QueryOf } from '@stream/contracts/operation';
import type { z } from 'zod';
import { fieldPath } from '@stream/contracts/server/field-path';

/**
 * The sandbox answers errors with the platform's error body and codes, so a partner reading the
 * sandbox sees what the docs show. Its own class, not the platform's `ApiError` (apps/platform
 * depends on this package, not the other way round); both extend the contracts' `CodedError`.
 */
export class SandboxError extends CodedError {}

/**
 * Gives a sandbox scope the platform's body parsers (raw bytes on `req.rawBody`), error body and 404,
 * so it behaves the same standalone and mounted inside the platform (Fastify keeps these per plugin
 * scope). The code is the platform's own, shared through `@stream/contracts/server/scope`.
 */
export function prepareScope(app: FastifyInstance): void {
  installBodyParsers(app);
  installErrorHandler(app, {
    envelope: 'stream',
    internalMessage: (id) => `The sandbox failed unexpectedly; see its log for ${id}.`,
    logMessage: 'sandbox: unhandled error',
  });
  app.setNotFoundHandler((req, reply) => {
    sendError(reply, 'stream', 404, {
      code: 'not_found',
      message: noRouteMessage(req, 'The sandbox has no'),
    });
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
    path: fieldPath(where, i.path as (string | number)[]),
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
  } else if (body === undefined && req.rawBody?.length) {
    body = req.rawBody.toString('utf8');
  }
  return { headers, body };
}
type ReceivedHeaders = Record<string, string | string[] | undefined>;
