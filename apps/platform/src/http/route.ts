import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import {
  envelopeOf,
  fastifyPath,
  type BodyOf,
  type HeadersOf,
  type Operation,
  type ParamsOf,
  type QueryOf,
  type Security,
} from '@stream/contracts/operation';
import type { z } from 'zod';
import { withoutNulls } from '../shared/without-nulls.ts';

export type OpRequest<O extends Operation> = FastifyRequest<{
  Body: BodyOf<O>;
  Querystring: QueryOf<O>;
  Params: ParamsOf<O>;
  Headers: HeadersOf<O>;
}>;

/** Makes the pre-handler that enforces an operation's security (registered by auth/ and webhooks/). */
export type SecurityHandlerFactory = (security: Security) => preHandlerAsyncHookHandler | undefined;

declare module 'fastify' {
  interface FastifyInstance {
    securityHandlers: Map<Security['kind'], SecurityHandlerFactory>;
  }
}

/**
 * Serves a contract operation: the route's path, validation and response serialisation all come
 * from the one operation object in @stream/contracts that also generates the OpenAPI document.
 * Call it in the capability (`defineCapability`) of the path's first segment, inside the scope
 * of the operation's API (`registerApi`): its errors then answer in that API's envelope.
 */
export function mount<O extends Operation>(
  app: FastifyInstance,
  op: O,
  handler: (req: OpRequest<O>, reply: FastifyReply) => Promise<unknown>,
): void {
  const response: Record<number, z.ZodType> = {};
  for (const [status, spec] of Object.entries(op.responses)) {
    if (spec.schema && (spec.contentType ?? 'application/json') === 'application/json') {
      response[Number(status)] = spec.schema;
    }
  }
  const scope = app.apiScope;
  if (scope) {
    if (op.api !== scope.api)
      throw new Error(`${op.operationId} belongs to the ${op.api} API, not to the ${scope.api} scope`);
    scope.operations.push(op);
  }
  let preHandler: preHandlerAsyncHookHandler | undefined;
  if (op.security.kind !== 'none') {
    const factory = app.securityHandlers?.get(op.security.kind);
    if (!factory)
      throw new Error(`${op.operationId}: no handler registered for ${op.security.kind} security`);
    preHandler = factory(op.security);
  }
  const preValidation = [
    preHandler,
    op.request?.nullIsAbsent
      ? async (req: FastifyRequest) => {
          req.body = withoutNulls(req.body);
        }
      : undefined,
  ].filter((hook) => hook !== undefined);
  app.route({
    method: op.method,
    url: withinPrefix(app.prefix, op),
    // A form body is refused (415) where the operation lists none (`jsonOnly`, read by the form parser).
    config: {
      envelope: envelopeOf(op),
      jsonOnly: !op.request?.bodyContentTypes?.includes('application/x-www-form-urlencoded'),
    },
    ...(op.request?.bodyLimit ? { bodyLimit: op.request.bodyLimit } : {}),
    schema: {
      ...(op.request?.body ? { body: op.request.body } : {}),
      ...(op.request?.query ? { querystring: op.request.query } : {}),
      ...(op.request?.params ? { params: op.request.params } : {}),
      ...(op.request?.headers ? { headers: op.request.headers } : {}),
      response,
    },
    // Authenticate before validating, so a caller without credentials learns that first (401,
    // not a 400 about its body). The raw body is already there for signature checks.
    ...(preValidation.length ? { preValidation } : {}),
    handler: handler as never,
  });
}

/** The operation's Fastify path relative to the capability's prefix (`/tokens/:token_id` -> `/:token_id`). */
function withinPrefix(prefix: string, op: Operation): string {
  const path = fastifyPath(op.path);
  if (!prefix) return path;
  if (path === prefix) return '';
  if (path.startsWith(`${prefix}/`)) return path.slice(prefix.length);
  throw new Error(
    `${op.operationId} (${op.path}) is not under ${prefix}: mount it in the capability of its first path segment`,
  );
}
