import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import {
  fastifyPath,
  type BodyOf,
  type HeadersOf,
  type Operation,
  type ParamsOf,
  type QueryOf,
  type Security,
} from '@stream/contracts/operation';
import type { z } from 'zod';

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
  let preHandler: preHandlerAsyncHookHandler | undefined;
  if (op.security.kind !== 'none') {
    const factory = app.securityHandlers?.get(op.security.kind);
    if (!factory)
      throw new Error(`${op.operationId}: no handler registered for ${op.security.kind} security`);
    preHandler = factory(op.security);
  }
  app.route({
    method: op.method,
    url: fastifyPath(op.path),
    schema: {
      ...(op.request?.body ? { body: op.request.body } : {}),
      ...(op.request?.query ? { querystring: op.request.query } : {}),
      ...(op.request?.params ? { params: op.request.params } : {}),
      ...(op.request?.headers ? { headers: op.request.headers } : {}),
      response,
    },
    // Authenticate before validating, so a caller without credentials learns that first (401,
    // not a 400 about its body). The raw body is already there for signature checks.
    ...(preHandler ? { preValidation: preHandler } : {}),
    handler: handler as never,
  });
}
