import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HostedMessage } from '@stream/contracts/envelopes';

/**
 * Query parameters by the contract's names in any case (`radius` for `Radius`, `distanceuom` for
 * `distanceUOM`), as the ASP.NET platform these APIs reproduce binds them. Without this a parameter
 * in another case was dropped without a word and its default answered (5 miles, `mi`, every order
 * type): wrong data, not an error. A parameter the call does not take is named in a WARNING.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** WARNINGs about query parameters the call did not use, added to its answer. */
    queryWarnings?: HostedMessage[];
  }
}

/** The call's query parameter names, by their lower case (once per route schema). */
const namesBySchema = new WeakMap<object, Map<string, string>>();
function namesOf(req: FastifyRequest): Map<string, string> {
  const schema = req.routeOptions.schema?.querystring as { shape?: Record<string, unknown> } | undefined;
  if (!schema) return new Map();
  let names = namesBySchema.get(schema);
  if (!names) {
    names = new Map(Object.keys(schema.shape ?? {}).map((n) => [n.toLowerCase(), n]));
    namesBySchema.set(schema, names);
  }
  return names;
}

export function queryNamesAnyCase(scope: FastifyInstance): void {
  // Callback hooks: an async one costs a promise per request on the hot PriceOrder path.
  scope.addHook('preValidation', (req, _reply, done) => {
    const query = req.query as Record<string, unknown>;
    let names: Map<string, string> | undefined;
    for (const sent of Object.keys(query)) {
      names ??= namesOf(req);
      const name = names.get(sent.toLowerCase());
      if (name === sent) continue;
      const why =
        name === undefined
          ? `${sent} is not a parameter of this call; it was ignored. It takes ${[...names.values()].join(', ') || 'none'}.`
          : Object.hasOwn(query, name)
            ? `${sent} was ignored: ${name} is also given.`
            : undefined;
      if (name !== undefined && why === undefined) query[name] = query[sent];
      else
        (req.queryWarnings ??= []).push({ id: `querystring.${sent}`, message: why!, messageType: 'WARNING' });
      delete query[sent];
    }
    done();
  });
  scope.addHook('preSerialization', (req, _reply, payload, done) => {
    const answer = payload as { messagesDetails?: unknown } | null;
    if (!req.queryWarnings || !Array.isArray(answer?.messagesDetails)) return done(null, payload);
    done(null, { ...answer, messagesDetails: [...answer.messagesDetails, ...req.queryWarnings] });
  });
}
