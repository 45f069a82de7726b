import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorEnvelope } from '@stream/contracts/envelopes';
import { API_DOCS, fastifyPath, type ApiDoc, type Operation } from '@stream/contracts/operation';
import { installErrorHandler, noRouteMessage, sendError } from '@stream/contracts/server/scope';
import { isConnectionLost } from '../db/errors.ts';

/** One API served by the platform: its envelope and the operations mounted in its scope. */
/** How every scope of the platform answers an error no route described. */
export const PLATFORM_ERRORS = {
  internalMessage: (id: string) => `Something went wrong on our side; quote ${id} to support.`,
  classify: (err: unknown) =>
    isConnectionLost(err)
      ? {
          status: 503,
          code: 'temporarily_unavailable',
          message:
            'The database connection dropped while this request ran; send it again (an order or webhook sent again is recognised as the same).',
        }
      : undefined,
};

export interface ApiScope {
  api: ApiDoc;
  envelope: ErrorEnvelope;
  operations: Operation[];
}

/**
 * A capability: the routes under one first path segment (`/tokens`, `/onboarding`), served from the
 * folder of that name (`apps/platform/src/tokens/`). Registered as a Fastify scope with that prefix,
 * so `mount` refuses an operation whose path lies elsewhere.
 */
export interface Capability {
  prefix: string;
  register(scope: FastifyInstance): void | Promise<void>;
}

export function defineCapability(
  prefix: string,
  register: (scope: FastifyInstance) => void | Promise<void>,
): Capability {
  if (!/^\/[^/]+$/.test(prefix)) throw new Error(`A capability prefix is one path segment: ${prefix}`);
  return { prefix, register };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The API scope this instance belongs to (undefined outside every API). */
    apiScope?: ApiScope;
  }
  interface FastifyContextConfig {
    /** The envelope of a mounted operation's errors (`envelopeOf(op)`). */
    envelope?: ErrorEnvelope;
    /** Refuse a form body (415): the operation takes JSON only (`mount`). */
    jsonOnly?: boolean;
  }
}

/**
 * Serves one API in its own Fastify scope: its error handler answers every error of its routes in
 * the API's envelope (`API_DOCS[api].envelope`, or the operation's own), and each capability is a
 * child scope with the API's not-found handler for its prefix. Request ids, body parsing and input
 * hygiene stay common (`createHttpServer`).
 */
export async function registerApi(
  app: FastifyInstance,
  api: ApiDoc,
  capabilities: readonly Capability[],
): Promise<void> {
  const scope: ApiScope = { api, envelope: API_DOCS[api].envelope, operations: [] };
  for (const { prefix } of capabilities) {
    const owner = app.apiPrefixes.get(prefix);
    if (owner) throw new Error(`${prefix} is already served by the ${owner.api} API`);
    app.apiPrefixes.set(prefix, scope);
  }
  await app.register(async (apiApp) => {
    apiApp.decorate('apiScope', scope);
    installErrorHandler(apiApp, {
      envelope: (req) => req.routeOptions.config?.envelope ?? scope.envelope,
      ...PLATFORM_ERRORS,
    });
    for (const capability of capabilities) {
      await apiApp.register(
        async (capApp) => {
          capApp.setNotFoundHandler((req, reply) => answerNotFound(app, req, reply));
          await capability.register(capApp);
          mountShadowedMethods(app, capApp, scope, capability.prefix);
        },
        { prefix: capability.prefix },
      );
    }
  });
}

/**
 * The router prefers a literal segment to a parameter only among routes of one method: a GET of
 * `/Orders/Cancel` (POST only) would reach `GET /Orders/{id}` with the id `Cancel`, and answer about
 * that id. Each method a parameterised sibling would take is mounted on the literal path too,
 * answered as no route is (`answerNotFound`: 405 with `Allow` in the hosted APIs, 404 elsewhere).
 * Siblings share their first segment, so one capability holds them all.
 */
function mountShadowedMethods(
  app: FastifyInstance,
  capApp: FastifyInstance,
  scope: ApiScope,
  prefix: string,
) {
  const ops = scope.operations.filter((op) => firstSegment(op.path) === prefix);
  for (const path of new Set(ops.map((op) => op.path))) {
    const taken = new Set(ops.filter((op) => op.path === path).map((op) => op.method));
    for (const sibling of ops) {
      if (taken.has(sibling.method)) continue;
      if (paramCount(sibling.path) <= paramCount(path) || !matchesTemplate(sibling.path, path)) continue;
      taken.add(sibling.method);
      const refuse = async (req: FastifyRequest, reply: FastifyReply) => answerNotFound(app, req, reply);
      // Answered as the request arrives, as a path no route takes: no token read, no query checked.
      capApp.route({
        method: sibling.method,
        url: fastifyPath(path).slice(prefix.length),
        onRequest: refuse,
        handler: refuse,
      });
    }
  }
}

/** The longest path parameter the router takes: no id the platform gives is that long. */
export const MAX_PARAM_LENGTH = 200;
export const LONG_PARAM_MESSAGE = `A path parameter is longer than ${MAX_PARAM_LENGTH} characters; no id is that long.`;

const firstSegment = (url: string) => /^\/[^/?#]*/.exec(url)?.[0];

/** The API scope a URL belongs to, by its first path segment. */
export function apiScopeOf(app: FastifyInstance, url: string): ApiScope | undefined {
  const first = firstSegment(url);
  return first ? app.apiPrefixes.get(first) : undefined;
}

/**
 * The API scope a path's first segment names in another case (`/priceorder`, `/STORES`), when
 * exactly one does: its 404 is then in that API's envelope and names the spelling to use.
 */
function apiScopeInAnotherCase(app: FastifyInstance, path: string): ApiScope | undefined {
  const first = firstSegment(path)?.toLowerCase();
  const named = [...app.apiPrefixes].filter(([prefix]) => prefix.toLowerCase() === first);
  return named.length === 1 ? named[0]![1] : undefined;
}

export function envelopeForUrl(app: FastifyInstance, url: string): ErrorEnvelope {
  return apiScopeOf(app, url)?.envelope ?? 'stream';
}

const paramCount = (template: string) => template.split('/').filter((seg) => seg.startsWith('{')).length;

/** Whether a concrete path matches an operation's path template. */
function matchesTemplate(template: string, path: string): boolean {
  const a = template.split('/');
  const b = path.split('/');
  return a.length === b.length && a.every((seg, i) => (/^\{[^}]+\}$/.test(seg) ? b[i] !== '' : seg === b[i]));
}

/**
 * No route for this method and path. 404 `not_found` in the envelope of the API the path belongs
 * to; the hosted APIs (whose spec lists it) answer 405 `method_not_allowed` with `Allow` when the
 * path exists with other methods. The Partner API keeps its 404.
 */
export function answerNotFound(app: FastifyInstance, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = req.url.split('?')[0] ?? '/';
  const scope = apiScopeOf(app, path) ?? apiScopeInAnotherCase(app, path);
  const envelope = scope?.envelope ?? 'stream';
  // The router refuses an over-long parameter (frameworkErrors) on some routes and finds no route on
  // others (a GET with its HEAD twin): the same 400 either way, never a 405 naming the method sent.
  if (path.split('/').some((segment) => segment.length > MAX_PARAM_LENGTH)) {
    return sendError(reply, envelope, 400, { code: 'invalid_request', message: LONG_PARAM_MESSAGE });
  }
  if (scope && envelope === 'hosted') {
    // As the router, a literal segment wins over a parameter: `/Orders/Cancel` is POST's, not `/Orders/{id}`'s.
    const matching = scope.operations.filter((op) => matchesTemplate(op.path, path));
    const fewest = Math.min(...matching.map((op) => paramCount(op.path)));
    const allowed = [
      ...new Set(matching.filter((op) => paramCount(op.path) === fewest).map((op) => op.method)),
    ];
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, envelope, 405, {
        code: 'method_not_allowed',
        message: `${req.method} is not allowed on ${path}; use ${allowed.join(' or ')}.`,
      });
    }
  }
  // Paths are matched as the contract spells them; a call spelling one in another case is told which.
  const spelled = scope?.operations.find(
    (op) => op.method === req.method && matchesTemplate(op.path.toLowerCase(), path.toLowerCase()),
  );
  const hint = spelled ? ` Paths are case-sensitive: did you mean ${spelled.method} ${spelled.path}?` : '';
  return sendError(reply, envelope, 404, { code: 'not_found', message: noRouteMessage(req) + hint });
}
