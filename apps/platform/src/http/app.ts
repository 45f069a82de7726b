import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { envelopeBody } from '@stream/contracts/envelopes';
import { fileURLToPath } from 'node:url';
import {
  installBodyParsers,
  installErrorHandler,
  refuseUnstorableUrl,
  sendError,
} from '@stream/contracts/server/scope';
import {
  answerNotFound,
  envelopeForUrl,
  LONG_PARAM_MESSAGE,
  MAX_PARAM_LENGTH,
  PLATFORM_ERRORS,
  type ApiScope,
} from './api.ts';
import { answerWriter } from './answer-writer.ts';
import { requestCheck } from './request-check.ts';
import { ApiError } from './errors.ts';

/** A route as mounted: what the routes test and the endpoint table test compare with the contracts. */
export interface MountedRoute {
  method: string;
  /** Fastify's form, prefix included: `/tokens/:token_id`. */
  url: string;
  /** The file that added it, relative to the repository (`apps/platform/src/tokens/tokens.route.ts`). */
  source: string | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route added to the server, in order (HEAD routes Fastify adds for GET routes left out). */
    mountedRoutes: MountedRoute[];
    /** The API scopes by the path prefix of each of their capabilities (`/tokens` -> partner). */
    apiPrefixes: Map<string, ApiScope>;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * A Fastify instance with the platform's cross-cutting behaviour, common to every API: request
 * ids, raw bodies kept for signatures, text PostgreSQL cannot store refused (NUL, lone surrogates),
 * Zod validation. Errors outside any API scope (health, admin, unknown paths) answer the
 * `{error: {...}}` body; each API scope (`registerApi`) installs its own envelope over it.
 */
export function createHttpServer(opts: {
  logger: FastifyBaseLogger | false;
  bodyLimit: number;
  /** Request, header and keep-alive timeouts (config.ts `HttpTimeouts`); Node's defaults when absent. */
  timeouts?: { requestTimeoutMs: number; headersTimeoutMs: number; keepAliveTimeoutMs: number };
}): FastifyInstance {
  const t = opts.timeouts;
  const app = Fastify({
    ...(opts.logger
      ? { loggerInstance: opts.logger.child({}, { serializers: { req: loggedRequest } }) }
      : { logger: false }),
    bodyLimit: opts.bodyLimit,
    // A client slow to send its request gets 408 and a closed connection; Node checks every
    // connectionsCheckingInterval, so that is kept well under the shortest timeout.
    ...(t && {
      requestTimeout: t.requestTimeoutMs,
      keepAliveTimeout: t.keepAliveTimeoutMs,
    }),
    http: {
      // Node answers a request without Host with an empty 400; the onRequest hook answers it instead.
      requireHostHeader: false,
      ...(t && {
        requestTimeout: t.requestTimeoutMs,
        headersTimeout: t.headersTimeoutMs,
        keepAliveTimeout: t.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(t.headersTimeoutMs / 4))),
      }),
    },
    // Accept a caller's X-Request-Id when it is sane, so a partner can correlate; else mint one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given)
        ? given
        : `req_${randomUUID().replaceAll('-', '')}`;
    },
    requestIdHeader: false,
    // `app` is read when a client errs, long after this object is built.
    clientErrorHandler: (err, socket) => {
      answerClientError(app, err, socket);
    },
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
    // Errors the router raises before any route runs (undecodable path, over-long parameter)
    // still answer with the error body of the API the path belongs to, as `invalid_request` at its
    // documented 400 (the router's own status for an over-long parameter is 414).
    frameworkErrors: (err, req, reply) => {
      // The reply here is typed for no particular route; widen it once.
      sendError(reply as unknown as FastifyReply, envelopeForUrl(app, req.url), 400, {
        code: 'invalid_request',
        message:
          err.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? LONG_PARAM_MESSAGE
            : `The request URL cannot be routed: ${err.message}.`,
      });
    },
  });
  app.setValidatorCompiler(requestCheck);
  app.setSerializerCompiler(answerWriter);
  app.decorate('apiPrefixes', new Map<string, ApiScope>());
  app.decorate('mountedRoutes', [] as MountedRoute[]);

  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' && app.mountedRoutes.some((r) => r.method === 'GET' && r.url === route.url)) {
        continue; // the HEAD twin of a GET route
      }
      app.mountedRoutes.push({ method, url: route.url, source: callerFile() });
    }
  });

  // An `Expect` Node does not know (it handles 100-continue itself): 417 `expectation_failed`, in
  // the envelope of the API the path belongs to (no route has run).
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify(
      envelopeBody(envelopeForUrl(app, req.url ?? '/'), {
        code: 'expectation_failed',
        message: `Expect: ${String(req.headers.expect)} is not supported; send the request without it.`,
      }),
    );
    res.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    res.end(body);
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (req.headers.host === undefined && req.raw.httpVersionMinor >= 1) {
      throw new ApiError('invalid_request', 'HTTP/1.1 needs a Host header; send one.');
    }
    // Bodies are read as sent: a compressed one would be taken for text.
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      throw new ApiError(
        'unsupported_media_type',
        `Content-Encoding: ${encoding} is not supported; send the body uncompressed.`,
      );
    }
    // PostgreSQL text cannot hold NUL: refuse it at the door rather than fail at the database.
    if (/%00/.test(req.url)) {
      throw new ApiError('validation_failed', 'The URL contains a NUL character (%00).', [
        { path: 'url', message: 'must not contain NUL (%00)' },
      ]);
    }
    refuseUnstorableUrl(req);
  });

  installBodyParsers(app);
  installErrorHandler(app, { envelope: 'stream', ...PLATFORM_ERRORS });
  // Reached by paths outside every API scope, and by the documentation site's GET wildcard when it
  // has no such page: either way the path decides the envelope.
  app.setNotFoundHandler((req, reply) => answerNotFound(app, req, reply));
  return app;
}

const PLUMBING = new Set([
  'apps/platform/src/http/app.ts',
  'apps/platform/src/http/route.ts',
  'packages/sandbox/src/http.ts',
]);

/** The first file of the platform or the sandbox on the stack that is not this plumbing. */
function callerFile(): string | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  for (const match of stack.matchAll(/(?:file:\/\/)?(\/[^\s():]+\.ts):\d+:\d+/g)) {
    const file = match[1]!;
    if (!file.startsWith(REPO_ROOT) || file.includes('/node_modules/')) continue;
    const rel = file.slice(REPO_ROOT.length);
    if (PLUMBING.has(rel)) continue;
    return rel;
  }
  return undefined;
}

/**
 * What Node cannot hand to a route (a request timed out half sent, headers too large, bytes that
 * are not HTTP) is still answered with the error body, then the connection is closed. No route, so
 * no API: the `stream` envelope.
 */
/**
 * Query parameters whose values are credentials: an onboarding entry link's `token`, an OAuth
 * callback's `code` and `state`, a menu file link's `signature`. Logged as `[redacted]`.
 */
const SECRET_PARAMS =
  /([?&](?:token|code|state|signature|client_secret|access_token|refresh_token)=)[^&#]*/gi;

/** A request as each log line shows it (Fastify's fields), its URL without credentials. */
function loggedRequest(req: FastifyRequest) {
  return {
    method: req.method,
    url: req.url.replace(SECRET_PARAMS, '$1[redacted]'),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * The path of the request line Node could not finish parsing, from the bytes it had (`rawPacket`):
 * enough to tell whose API the request was for. Undefined when they do not start a request line.
 */
export function requestLinePath(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  return /^[A-Z]{1,16} (\/[^\s?]*)/.exec(rawPacket.subarray(0, 1_024).toString('latin1'))?.[1];
}

/**
 * The longest request line (method, path, query, version) answered 414 rather than 431 when the
 * headers overflow: RFC 9112 asks servers to take request lines of at least 8,000 bytes.
 */
export const LONGEST_REQUEST_LINE = 8_192;

/**
 * Whether the bytes Node had when the headers overflowed hold a request line longer than
 * `LONGEST_REQUEST_LINE` (finished or not): then the URI, not the headers, is what is too long.
 */
export function requestLineTooLong(rawPacket: unknown): boolean {
  if (!Buffer.isBuffer(rawPacket) || !/^[A-Z]{1,16} \//.test(rawPacket.subarray(0, 18).toString('latin1')))
    return false;
  const end = rawPacket.indexOf('\r\n');
  return (end === -1 ? rawPacket.length : end) > LONGEST_REQUEST_LINE;
}

/**
 * Answers what Node refuses before Fastify sees a request (a request too slow, headers too large,
 * bytes that are not HTTP), in the envelope of the API the request line names when it can be read.
 */
function answerClientError(
  app: FastifyInstance,
  err: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request_timeout', 'The request did not arrive in full in time; send it again in one go.']
      : err.code === 'HPE_HEADER_OVERFLOW' && requestLineTooLong(err.rawPacket)
        ? [
            414,
            'uri_too_long',
            `The request line is longer than ${LONGEST_REQUEST_LINE} bytes; shorten the path and query string, or send the data in a body.`,
          ]
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'headers_too_large', 'The request headers are too large; send fewer or shorter headers.']
          : [400, 'invalid_request', 'The request is not well-formed HTTP/1.1.'];
  if (socket.writable) {
    const envelope = envelopeForUrl(app, requestLinePath(err.rawPacket) ?? '');
    const body = JSON.stringify(envelopeBody(envelope, { code, message }));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
