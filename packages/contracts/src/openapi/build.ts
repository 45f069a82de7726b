import type { z } from 'zod';
import { API_DOCS, type ApiDoc, type NamedExample, type Operation, type ResponseSpec } from '../operation.ts';
import { errorResponses } from './errors.ts';
import { type Io, type JsonObject, referencedComponents, SchemaCollector } from './schemas.ts';
import { securityRequirement, securitySchemes } from './security.ts';

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: JsonObject[];
  tags: { name: string; description?: string }[];
  /** Redoc's sidebar groups: which side builds the endpoint. */
  'x-tagGroups': { name: string; tags: string[] }[];
  paths: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject>; securitySchemes: Record<string, JsonObject> };
}

export const API_VERSION = '1.0.0';
const JSON_TYPE = 'application/json';

export const PLATFORM_SERVER = {
  url: 'http://localhost:8080',
  description: 'The local platform (`npm start`).',
};
export const PARTNER_SERVER = {
  url: '{partner_base_url}',
  description: 'Your service: the platform calls it.',
  variables: {
    partner_base_url: {
      default: 'https://partner.example.com',
      description: 'The base URL you registered with the platform.',
    },
  },
};
const DIRECTION_GROUPS = { partner: 'Endpoints you build', platform: 'Calls you make' } as const;

/** The OpenAPI 3.1 document of one API reference, built from the operations that belong to it. */
export function buildOpenApiDocument(api: ApiDoc, operations: readonly Operation[]): OpenApiDocument {
  const ops = operations.filter((op) => op.api === api);
  const schemas = new SchemaCollector();
  const paths: OpenApiDocument['paths'] = {};
  for (const op of ops) (paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(op, schemas);
  const doc = API_DOCS[api];
  return {
    openapi: '3.1.0',
    info: { title: doc.title, version: API_VERSION, description: doc.intro },
    servers: [PLATFORM_SERVER],
    tags: tags(ops),
    'x-tagGroups': (['partner', 'platform'] as const)
      .map((side) => ({
        name: DIRECTION_GROUPS[side],
        tags: [...new Set(ops.filter((op) => op.servedBy === side).flatMap((op) => op.tags))],
      }))
      .filter((group) => group.tags.length > 0),
    paths,
    components: {
      schemas: referencedComponents(schemas.components, paths),
      securitySchemes: securitySchemes(ops),
    },
  };
}

/**
 * Describe what the reader sends as the schema accepts it (input) and what the reader receives as the
 * schema produces it (output). On an endpoint the partner builds the roles swap: the platform sends
 * the request and parses the partner's answer.
 */
function ioOf(op: Operation, part: 'request' | 'response'): Io {
  return (part === 'request') === (op.servedBy === 'platform') ? 'input' : 'output';
}

function operationObject(op: Operation, schemas: SchemaCollector): JsonObject {
  const where = op.operationId;
  const requestIo = ioOf(op, 'request');
  const request = op.request;
  const examples = parameterExamples(op);
  const parameters = [
    ...parametersOf(request?.params, 'path', requestIo, schemas, where, examples),
    ...parametersOf(request?.query, 'query', requestIo, schemas, where, examples),
    ...parametersOf(request?.headers, 'header', requestIo, schemas, where, examples),
  ];
  const responses: Record<string, JsonObject> = {};
  for (const [status, spec] of Object.entries(op.responses)) {
    responses[status] = responseObject(spec, ioOf(op, 'response'), schemas, `${where} ${status}`);
  }
  Object.assign(responses, errorResponses(op, schemas));
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: [...op.tags],
    ...(op.deprecated ? { deprecated: true } : {}),
    ...(op.externalDocs ? { externalDocs: op.externalDocs } : {}),
    ...(op.servedBy === 'partner' ? { servers: [PARTNER_SERVER] } : {}),
    security: securityRequirement(op.security),
    ...(parameters.length ? { parameters } : {}),
    ...(request?.body
      ? {
          requestBody: {
            required: !request.body.safeParse(undefined).success,
            content: mediaTypes(
              [JSON_TYPE, ...(request.bodyContentTypes ?? [])],
              schemas.toSchema(request.body, requestIo, `${where} body`),
              request,
            ),
          },
        }
      : {}),
    responses,
  };
}

/** With no body, `request.example` holds example values of the parameters by name. */
export function parameterExamples(op: Operation): Record<string, unknown> {
  const example = op.request?.body ? undefined : op.request?.example;
  return example && typeof example === 'object' ? (example as Record<string, unknown>) : {};
}

/** Each property of a params/query/headers object schema is one parameter. */
function parametersOf(
  schema: z.ZodType | undefined,
  location: 'path' | 'query' | 'header',
  io: Io,
  schemas: SchemaCollector,
  where: string,
  examples: Record<string, unknown>,
): JsonObject[] {
  if (!schema) return [];
  const object = resolve(schemas.toSchema(schema, io, `${where} ${location}`), schemas);
  if (object.type !== 'object' || !object.properties) {
    throw new Error(`${where}: request ${location === 'path' ? 'params' : location} must be a z.object`);
  }
  const required = (object.required ?? []) as string[];
  return Object.entries(object.properties as Record<string, JsonObject>).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.includes(name),
      ...(description ? { description } : {}),
      schema: propertySchema,
      ...(examples[name] !== undefined ? { example: examples[name] } : {}),
    };
  });
}

/** Follows a root `$ref` to its component (a named object schema used for parameters). */
function resolve(schema: JsonObject, schemas: SchemaCollector): JsonObject {
  const ref = schema.$ref;
  return typeof ref === 'string' ? (schemas.components[ref.split('/').pop() ?? ''] ?? schema) : schema;
}

function responseObject(spec: ResponseSpec, io: Io, schemas: SchemaCollector, where: string): JsonObject {
  const headers = Object.entries(spec.headers ?? {}).map(([name, header]) => [
    name,
    { description: header.description, schema: schemas.toSchema(header.schema, io, `${where} ${name}`) },
  ]);
  const contentType = spec.contentType ?? JSON_TYPE;
  const schema = spec.schema
    ? schemas.toSchema(spec.schema, io, where)
    : { type: 'string', contentMediaType: contentType };
  const hasBody = spec.schema !== undefined || spec.contentType !== undefined;
  return {
    description: spec.description,
    ...(headers.length ? { headers: Object.fromEntries(headers) } : {}),
    ...(hasBody ? { content: mediaTypes([contentType], schema, spec) } : {}),
  };
}

/** The same schema and examples under each content type. */
function mediaTypes(
  contentTypes: readonly string[],
  schema: JsonObject,
  source: { example?: unknown; examples?: Record<string, NamedExample> },
): Record<string, JsonObject> {
  // OpenAPI forbids `example` beside `examples`: with named examples, the single one joins them.
  const examples = source.examples
    ? {
        ...(source.example !== undefined ? { example: { summary: 'Example', value: source.example } } : {}),
        ...source.examples,
      }
    : undefined;
  const media = {
    schema,
    ...(examples ? { examples } : source.example !== undefined ? { example: source.example } : {}),
  };
  return Object.fromEntries(contentTypes.map((type) => [type, media]));
}

function tags(ops: readonly Operation[]): OpenApiDocument['tags'] {
  const descriptions = new Map<string, string | undefined>();
  for (const op of ops) {
    for (const name of op.tags) {
      descriptions.set(name, descriptions.get(name) ?? op.tagDescriptions?.[name]);
    }
  }
  return [...descriptions].map(([name, description]) => (description ? { name, description } : { name }));
}
