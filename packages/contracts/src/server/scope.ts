/**
 * The Fastify plumbing the platform and the sandbox share (the sandbox cannot import the platform;
 * both import the contracts). Only types come from Fastify: this module adds no runtime dependency
 * to the contracts package.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { envelopeBody, type ErrorEnvelope, type ErrorFacts } from '../envelopes.ts';
import { CodedError, type ErrorDetail } from '../errors.ts';
import { useIssueSentences } from '../issue-sentences.ts';
import { parseFormBody, parseJsonBody, refuseUnstorableText } from './input.ts';
import { fieldPath } from './field-path.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact bytes of a JSON or form body, for HMAC verification. */
    rawBody?: Buffer;
  }
}

/**
 * Replaces a scope's body parsers: JSON (`application/json`, `application/*+json`) and forms, each
 * keeping the raw bytes on `req.rawBody` for signatures and refusing text PostgreSQL cannot store.
 */
export function installBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const json = (
    req: FastifyRequest,
    body: string | Buffer,
    done: (err: Error | null, body?: unknown) => void,
  ) => {
    req.rawBody = body as Buffer;
    try {
      refuseOtherCharset(req);
      done(null, parseJsonBody(body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, json);
  // Its `+json` kinds (`application/json-patch+json`): Fastify matches a string exactly.
  app.addContentTypeParser(/^application\/[\w.-]+\+json\s*(;.*)?$/i, { parseAs: 'buffer' }, json);
  // OAuth clients often post token requests as a form. A route marked `jsonOnly` refuses one
  // before it is read into fields its schema would then misname (`curl -d` sends a form).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req, body, done) => {
    if ((req.routeOptions.config as { jsonOnly?: boolean } | undefined)?.jsonOnly) {
      const err = new CodedError(
        'unsupported_media_type',
        'Send the body as application/json (with curl: -H "Content-Type: application/json"); this endpoint takes no form.',
      );
      return done(err, undefined);
    }
    req.rawBody = body as Buffer;
    try {
      refuseOtherCharset(req);
      done(null, parseFormBody(body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

/**
 * Bodies are read as UTF-8 (RFC 8259 for JSON; forms as browsers send them). A body declared in
 * another charset is refused rather than decoded wrong: `Café` in latin-1 would be kept as `Caf\ufffd`.
 */
function refuseOtherCharset(req: FastifyRequest): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.headers['content-type'] ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw new CodedError(
      'unsupported_media_type',
      `The body must be UTF-8; charset=${charset.slice(0, 40)} is not supported (send charset=utf-8, or none).`,
    );
  }
}

/** Refuses query and path parameters PostgreSQL cannot store (an `onRequest` hook's work). */
export function refuseUnstorableUrl(req: FastifyRequest): void {
  refuseUnstorableText(req.params, 'params');
  refuseUnstorableText(req.query, 'query');
}

/** A Fastify schema validation error (Zod issues through fastify-type-provider-zod, or Ajv's). */
interface ValidationError {
  validation: {
    instancePath?: string;
    message?: string;
    keyword?: string;
  }[];
  validationContext?: string;
}
function isValidationError(err: unknown): err is ValidationError {
  return Array.isArray((err as { validation?: unknown }).validation);
}

/** What an error thrown anywhere in a request answers: its status and the facts its envelope wraps. */
export function describeError(
  err: FastifyError | Error,
  bodyLimit: number,
): (ErrorFacts & { status: number }) | undefined {
  const facts = (status: number, code: string, message: string, details?: ErrorDetail[]) => ({
    status,
    code,
    message,
    ...(details ? { details } : {}),
  });
  if (err instanceof CodedError) return facts(err.status, err.code, err.message, err.details);
  if (isValidationError(err)) {
    const where = err.validationContext ?? 'body';
    const details = err.validation.map((v) => ({
      // instancePath is JSON-pointer-like (`/data/items/0/qty`); the body itself is `/`.
      path: fieldPath(where, (v.instancePath ?? '').split('/')),
      // A query parameter sent twice arrives as an array: say to send it once, as the numeric ones say.
      message:
        (where === 'querystring' ? v.message?.replace(/, not an array\.$/, ', sent once.') : v.message) ??
        'is invalid',
    }));
    const first = details[0];
    return facts(
      400,
      'validation_failed',
      first ? `${first.path}: ${first.message}` : 'The request is invalid.',
      details,
    );
  }
  const { code, statusCode } = err as FastifyError;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return facts(413, 'payload_too_large', `The body is larger than the ${bodyLimit} byte limit.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return facts(415, 'unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return facts(400, 'invalid_json', 'The body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return facts(400, 'invalid_json', 'Content-Length does not match the body.');
  }
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return facts(statusCode, statusCode === 404 ? 'not_found' : 'validation_failed', err.message);
  }
  return undefined; // unexpected: a 500
}

/** Sends `facts` in `envelope`, with the request id (also the `X-Request-Id` header). */
export function sendError(
  reply: FastifyReply,
  envelope: ErrorEnvelope,
  status: number,
  facts: ErrorFacts,
): FastifyReply {
  return reply
    .header('x-request-id', reply.request.id)
    .status(status)
    .send(envelopeBody(envelope, { ...facts, requestId: reply.request.id }));
}

/**
 * Gives a scope its error handler: every error (a `CodedError`, a validation, parse, size or
 * routing error) answers in `envelope`; anything unexpected is logged with the request id and
 * answered 500 `internal_error` with `internalMessage`, never a stack trace.
 */
export function installErrorHandler(
  app: FastifyInstance,
  opts: {
    /** The scope's envelope, or a function of the request (an operation may override its API's). */
    envelope: ErrorEnvelope | ((req: FastifyRequest) => ErrorEnvelope);
    internalMessage: (requestId: string) => string;
    logMessage?: string;
    /** Errors of the server's own making it can name (a lost database connection), before the rest. */
    classify?: (err: unknown) => { status: number; code: string; message: string } | undefined;
  },
): void {
  // Validation messages as sentences saying what to send, wherever this process parses.
  useIssueSentences();
  const bodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024;
  const envelopeOf =
    typeof opts.envelope === 'function' ? opts.envelope : () => opts.envelope as ErrorEnvelope;
  app.setErrorHandler((err: FastifyError | Error, req, reply) => {
    // A route may take larger bodies than the server (an operation's `bodyLimit`).
    const known = opts.classify?.(err) ?? describeError(err, req.routeOptions?.bodyLimit ?? bodyLimit);
    if (known) return sendError(reply, envelopeOf(req), known.status, known);
    req.log.error({ err }, opts.logMessage ?? 'unhandled error');
    return sendError(reply, envelopeOf(req), 500, {
      code: 'internal_error',
      message: opts.internalMessage(req.id),
    });
  });
}

/** The sentence of a 404 for a request: `There is no GET /x route.` */
export function noRouteMessage(req: FastifyRequest, what = 'There is no'): string {
  return `${what} ${req.method} ${req.url.split('?')[0]} route.`;
}
