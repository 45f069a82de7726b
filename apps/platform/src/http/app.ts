import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
} from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import { ApiError, errorBody } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact bytes of a JSON or form body, for HMAC verification. */
    rawBody?: Buffer;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A Fastify instance with the platform's cross-cutting behaviour: request ids, raw bodies kept
 * for signatures, Zod validation, and one error body for every failure (never a stack trace).
 */
export function createHttpServer(opts: {
  logger: FastifyBaseLogger | false;
  bodyLimit: number;
  /** Request, header and keep-alive timeouts (config.ts `HttpTimeouts`); Node's defaults when absent. */
  timeouts?: { requestTimeoutMs: number; headersTimeoutMs: number; keepAliveTimeoutMs: number };
}): FastifyInstance {
  const t = opts.timeouts;
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    bodyLimit: opts.bodyLimit,
    // A client slow to send its request gets 408 and a closed connection; Node checks every
    // connectionsCheckingInterval, so that is kept well under the shortest timeout.
    ...(t && {
      requestTimeout: t.requestTimeoutMs,
      keepAliveTimeout: t.keepAliveTimeoutMs,
      http: {
        requestTimeout: t.requestTimeoutMs,
        headersTimeout: t.headersTimeoutMs,
        keepAliveTimeout: t.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(t.headersTimeoutMs / 4))),
      },
    }),
    // Accept a caller's X-Request-Id when it is sane, so a partner can correlate; else mint one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given)
        ? given
        : `req_${randomUUID().replaceAll('-', '')}`;
    },
    requestIdHeader: false,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // Errors the router raises before any route runs (undecodable path, over-long parameter)
    // still answer with the one error body.
    frameworkErrors: (err, req, reply) => {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
      // The reply here is typed for no particular route; widen it once.
      (reply as unknown as FastifyReply)
        .header('x-request-id', req.id)
        .status(status)
        .send(errorBody('invalid_request', `The request URL cannot be routed: ${err.message}.`, req.id));
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    // PostgreSQL text cannot hold NUL: refuse it at the door rather than fail at the database.
    if (/%00/.test(req.url)) {
      throw new ApiError('validation_failed', 'The URL contains a NUL character (%00).', [
        { path: 'url', message: 'must not contain NUL (%00)' },
      ]);
    }
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', 'application/*+json'],
    { parseAs: 'buffer' },
    (req, body, done) => {
      const raw = body as Buffer;
      req.rawBody = raw;
      if (raw.length === 0) return done(null, undefined);
      try {
        const value: unknown = JSON.parse(raw.toString('utf8'), dropProto);
        refuseNul(value, 'body');
        done(null, value);
      } catch (err) {
        done(
          err instanceof ApiError
            ? err
            : new ApiError('invalid_json', `The body is not valid JSON: ${(err as Error).message}.`),
          undefined,
        );
      }
    },
  );
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req, body, done) => {
    req.rawBody = body as Buffer;
    try {
      const fields = Object.fromEntries(new URLSearchParams((body as Buffer).toString('utf8')));
      refuseNul(fields, 'body');
      done(null, fields);
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    const send = (
      status: number,
      code: string,
      message: string,
      details?: { path: string; message: string }[],
    ) => reply.status(status).send(errorBody(code, message, req.id, details));
    if (err instanceof ApiError) return send(err.status, err.code, err.message, err.details);
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext ?? 'body';
      const details = err.validation.map((v) => ({
        path: `${where}${v.instancePath ? v.instancePath.replaceAll('/', '.') : ''}`,
        message: v.message ?? 'is invalid',
      }));
      const first = details[0];
      return send(
        400,
        'validation_failed',
        first ? `${first.path}: ${first.message}` : 'The request is invalid.',
        details,
      );
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(413, 'payload_too_large', `The body is larger than the ${opts.bodyLimit} byte limit.`);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(415, 'unsupported_media_type', 'Send the body as application/json.');
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return send(400, 'invalid_json', 'The body is not valid JSON.');
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return send(400, 'invalid_json', 'Content-Length does not match the body.');
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return send(err.statusCode, err.statusCode === 404 ? 'not_found' : 'validation_failed', err.message);
    }
    req.log.error({ err }, 'unhandled error');
    return send(500, 'internal_error', `Something went wrong on our side; quote ${req.id} to support.`);
  });

  app.setNotFoundHandler((req, reply) => {
    reply
      .status(404)
      .send(errorBody('not_found', `There is no ${req.method} ${req.url.split('?')[0]} route.`, req.id));
  });
  return app;
}

/** JSON.parse reviver that drops `__proto__` keys (prototype poisoning). */
function dropProto(key: string, value: unknown) {
  return key === '__proto__' ? undefined : value;
}

/** PostgreSQL text cannot hold NUL: refuse it at the door, naming the field, rather than fail at the database. */
function refuseNul(value: unknown, path: string): void {
  if (typeof value === 'string') {
    if (value.includes('\0')) {
      throw new ApiError('validation_failed', `${path}: must not contain the NUL character (\\u0000)`, [
        { path, message: 'must not contain the NUL character (\\u0000)' },
      ]);
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) refuseNul(v, `${path}.${k}`);
  }
}
