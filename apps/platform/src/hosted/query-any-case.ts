import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HostedMessage } from '@stream/contracts/envelopes';

/**
 * Query parameters by the contract's names in any case (`radius` for `Radius`, `distanceuom` for
 * `distanceUOM`), and the values of a closed list in any case (`KM` for `km`, `doordash` for
 * `DoorDash`, `TRUE` for `true`), as the ASP.NET platform these APIs reproduce binds names and enums.
 * Without this a parameter in another case was dropped without a word and its default answered
 * (5 miles, `mi`, every order type): wrong data, not an error; and a value in another case was a 400
 * for a value the call plainly names. A parameter the call does not take is named in a WARNING; a
 * value outside the list is left for the contract to refuse (400, naming the values). Header values
 * of a closed list (`X-Service-Type`) are read in any case the same way.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** WARNINGs about query parameters the call did not use, added to its answer. */
    queryWarnings?: HostedMessage[];
  }
}

type ZodLike = {
  _zod?: { def: { type: string; innerType?: ZodLike; in?: ZodLike; entries?: object; values?: unknown[] } };
};

/**
 * The values a query parameter's schema takes, by their lower case, when they are a closed list (an
 * enum or literal, under optional, default, meta and transforms); undefined for an open one, or a
 * list two of whose values differ only in case (there, the case says which).
 */
function closedValues(schema: ZodLike): Map<string, string> | undefined {
  let def = schema._zod?.def;
  while (def && (def.innerType || def.in)) def = (def.innerType ?? def.in)!._zod?.def;
  const values =
    def?.type === 'enum'
      ? Object.values(def.entries ?? {})
      : def?.type === 'literal'
        ? (def.values ?? [])
        : [];
  const strings = values.filter((v): v is string => typeof v === 'string');
  const byLower = new Map(strings.map((v) => [v.toLowerCase(), v]));
  return byLower.size && byLower.size === strings.length ? byLower : undefined;
}

/** A call's query parameters: names by their lower case, and the closed lists of values by name. */
interface QueryShape {
  names: Map<string, string>;
  values: Map<string, Map<string, string>>;
}
const shapeBySchema = new WeakMap<object, QueryShape>();
const NO_QUERY: QueryShape = { names: new Map(), values: new Map() };
function shapeOf(req: FastifyRequest): QueryShape {
  const schema = req.routeOptions.schema?.querystring as { shape?: Record<string, ZodLike> } | undefined;
  if (!schema) return NO_QUERY;
  let shape = shapeBySchema.get(schema);
  if (!shape) {
    shape = { names: new Map(), values: new Map() };
    for (const [name, field] of Object.entries(schema.shape ?? {})) {
      shape.names.set(name.toLowerCase(), name);
      const listed = closedValues(field);
      if (listed) shape.values.set(name, listed);
    }
    shapeBySchema.set(schema, shape);
  }
  return shape;
}

/** A call's headers whose values are a closed list (`x-service-type`), by header name. */
const headerValuesBySchema = new WeakMap<object, [string, Map<string, string>][]>();
function headerValuesOf(req: FastifyRequest): [string, Map<string, string>][] {
  const schema = req.routeOptions.schema?.headers as { shape?: Record<string, ZodLike> } | undefined;
  if (!schema) return [];
  let listed = headerValuesBySchema.get(schema);
  if (!listed) {
    listed = Object.entries(schema.shape ?? {}).flatMap(([name, field]) => {
      const values = closedValues(field);
      return values ? [[name.toLowerCase(), values] as [string, Map<string, string>]] : [];
    });
    headerValuesBySchema.set(schema, listed);
  }
  return listed;
}

export function queryAnyCase(scope: FastifyInstance): void {
  // Callback hooks: an async one costs a promise per request on the hot PriceOrder path.
  scope.addHook('preValidation', (req, _reply, done) => {
    // Header values of a closed list too: `X-Service-Type: doordash` is DoorDash, as in the query.
    for (const [name, values] of headerValuesOf(req)) {
      const sent = req.headers[name];
      const listed = typeof sent === 'string' ? values.get(sent.toLowerCase()) : undefined;
      if (listed !== undefined) req.headers[name] = listed;
    }
    const query = req.query as Record<string, unknown>;
    let shape: QueryShape | undefined;
    for (const sent of Object.keys(query)) {
      shape ??= shapeOf(req);
      const { names, values } = shape;
      const name = names.get(sent.toLowerCase());
      if (name !== sent) {
        const taken = name !== undefined && !Object.hasOwn(query, name);
        if (taken) query[name] = query[sent];
        else {
          const takes = `It takes ${[...names.values()].join(', ') || 'none'}.`;
          const why =
            name !== undefined
              ? `${sent} was ignored: ${name} is also given.`
              : sent === ''
                ? `A parameter without a name (\`?=…\`) was ignored. ${takes}`
                : `${sent} is not a parameter of this call; it was ignored. ${takes}`;
          (req.queryWarnings ??= []).push({
            id: sent === '' ? 'querystring' : `querystring.${sent}`,
            message: why,
            messageType: 'WARNING',
          });
        }
        delete query[sent];
        if (!taken) continue;
      }
      const value = query[name!];
      const listed = typeof value === 'string' ? values.get(name!)?.get(value.toLowerCase()) : undefined;
      if (listed !== undefined) query[name!] = listed;
    }
    done();
  });
  scope.addHook('preSerialization', (req, _reply, payload, done) => {
    const answer = payload as { messagesDetails?: unknown } | null;
    if (!req.queryWarnings || !Array.isArray(answer?.messagesDetails)) return done(null, payload);
    done(null, { ...answer, messagesDetails: [...answer.messagesDetails, ...req.queryWarnings] });
  });
}
