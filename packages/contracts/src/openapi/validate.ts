import { ENVELOPE_SCHEMAS } from '../envelopes.ts';
import { envelopeOf, type Operation } from '../operation.ts';
import { type OpenApiDocument, parameterExamples } from './build.ts';
import { errorExample, errorsByStatus } from './errors.ts';
import type { JsonObject } from './schemas.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const OPERATION_ID = /^[A-Za-z][A-Za-z0-9_]*$/;
const STATUS = /^([1-5]\d\d|[1-5]XX|default)$/;
/** What reading a body can answer on every route that takes one (the Partner API's `BODY_ERRORS`). */
const BODY_READ_ERRORS = ['invalid_json', 'unsupported_media_type', 'payload_too_large'] as const;
const pathParams = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);

/**
 * What an operation must carry to be served and documented: the reference text, a success answer,
 * and examples that its own schemas accept. Returns one sentence per problem.
 */
export function checkOperation(op: Operation): string[] {
  const issues: string[] = [];
  const say = (problem: string) => issues.push(`${op.operationId || `${op.method} ${op.path}`}: ${problem}`);
  if (!OPERATION_ID.test(op.operationId)) say('operationId must be an identifier');
  if (!op.summary?.trim()) say('missing summary');
  if (!op.description?.trim()) say('missing description');
  if (!op.tags.length) say('missing tags');
  if (!op.security) say('missing security');
  // A signature the operation checks belongs in its security, where the reference shows it.
  const signatureError = op.errors?.find((code) => code.startsWith('signature_'));
  if (signatureError && op.security?.kind !== 'webhook-signature' && op.security?.kind !== 'event-signature')
    say(
      `answers ${signatureError} but its security is ${op.security?.kind}: declare the signature it checks`,
    );
  if (!Object.keys(op.responses).some((status) => Number(status) < 400)) say('no success response');

  const request = op.request;
  if (request?.body) {
    if (request.example === undefined && !request.examples) say('request body has no example');
    for (const [name, value] of examplesOf(request)) {
      const result = request.body.safeParse(value);
      if (!result.success) say(`request example ${name} is rejected: ${result.error.message}`);
    }
  } else if (request?.examples) {
    say('named request examples need a body schema');
  } else if (request?.example !== undefined) {
    issues.push(...checkParameterExample(op).map((problem) => `${op.operationId}: ${problem}`));
  }

  for (const [status, spec] of Object.entries(op.responses)) {
    const examples = examplesOf(spec);
    if (spec.schema && (spec.contentType ?? 'application/json') === 'application/json' && !examples.length) {
      say(`response ${status} has no example`);
    }
    if (!spec.schema && spec.contentType === undefined && examples.length) {
      say(`response ${status} has an example but no body`);
    }
    for (const [name, value] of examples) {
      const result = spec.schema?.safeParse(value);
      if (result?.success === false)
        say(`response ${status} example ${name} is rejected: ${result.error.message}`);
    }
  }

  for (const [status, codes] of errorsByStatus(op)) {
    if (op.responses[status])
      say(`status ${status} is both in responses and in errors (${codes.join(', ')})`);
    for (const code of codes) {
      const envelope = envelopeOf(op);
      if (!ENVELOPE_SCHEMAS[envelope].safeParse(errorExample(code, envelope)).success)
        say(`error example ${code} is not a ${envelope} error body`);
    }
  }

  // The platform checks every parameter, header and body against the contract before the handler runs, and
  // answers what fails 400 validation_failed: the reference must list it, or a partner's error handling
  // written from it misses a code the platform sends.
  const validated = request && (request.params || request.query || request.headers || request.body);
  if (op.servedBy === 'platform' && validated && !op.errors?.includes('validation_failed'))
    say('validates its request but does not declare validation_failed');
  // A body is read before it is validated: one that is not JSON, of another media type or too large is
  // answered before the handler runs, so those codes belong in the reference as well.
  if (op.servedBy === 'platform' && request?.body)
    for (const code of BODY_READ_ERRORS)
      if (!op.errors?.includes(code)) say(`takes a body but does not declare ${code}`);

  const declared = Object.keys(shapeOf(request?.params));
  const inPath = pathParams(op.path);
  for (const name of inPath)
    if (!declared.includes(name)) say(`path parameter {${name}} has no schema in request.params`);
  for (const name of declared) if (!inPath.includes(name)) say(`request.params.${name} is not in the path`);
  return issues;
}

/** With no body, `request.example` holds parameter values: each must belong to, and pass, its schema. */
function checkParameterExample(op: Operation): string[] {
  const example = parameterExamples(op);
  const schemas = [op.request?.params, op.request?.query, op.request?.headers].filter((s) => s !== undefined);
  const issues = Object.keys(example)
    .filter((name) => !schemas.some((schema) => name in shapeOf(schema)))
    .map((name) => `request example names ${name}, which is not a parameter`);
  for (const schema of schemas) {
    // A parameter is text on the wire: the example 5 is sent as `5`.
    const values = Object.fromEntries(
      Object.entries(example)
        .filter(([name]) => name in shapeOf(schema))
        .map(([name, v]) => [name, typeof v === 'number' || typeof v === 'boolean' ? String(v) : v]),
    );
    const result = schema.safeParse(values);
    if (!result.success) issues.push(`request parameter example is rejected: ${result.error.message}`);
  }
  return issues;
}

/** Every operation's issues, plus operationIds used twice (they must be unique across all documents). */
export function checkOperations(ops: readonly Operation[]): string[] {
  const seen = new Set<string>();
  const issues = ops.flatMap(checkOperation);
  for (const op of ops) {
    if (seen.has(op.operationId)) issues.push(`${op.operationId}: operationId used twice`);
    seen.add(op.operationId);
  }
  return issues;
}

/**
 * A focused structural check of an OpenAPI 3.1 document (no validator package is installed): version,
 * info, every `$ref` resolves, path parameters match their templates, operationIds are unique, security
 * schemes exist, response codes are well formed, server variables are defined.
 */
export function checkOpenApiDocument(doc: OpenApiDocument): string[] {
  const issues: string[] = [];
  if (doc.openapi !== '3.1.0') issues.push(`openapi is ${String(doc.openapi)}, not 3.1.0`);
  if (typeof doc.info?.title !== 'string' || typeof doc.info?.version !== 'string') {
    issues.push('info needs a title and a version');
  }
  if (!doc.paths || typeof doc.paths !== 'object') issues.push('paths must be an object');

  for (const ref of refsIn(doc)) {
    if (!ref.startsWith('#/') || resolvePointer(doc, ref) === undefined)
      issues.push(`$ref ${ref} does not resolve`);
  }
  for (const server of allServers(doc)) {
    for (const name of pathParams(server.url as string)) {
      if (!(server.variables as JsonObject | undefined)?.[name])
        issues.push(`server ${server.url}: no variable ${name}`);
    }
  }

  const ids = new Set<string>();
  const tagNames = new Set(doc.tags.map((tag) => tag.name));
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!path.startsWith('/')) issues.push(`path ${path} must start with /`);
    for (const [method, op] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!METHODS.includes(method)) issues.push(`${where}: not an HTTP method`);
      const id = op.operationId as string;
      if (ids.has(id)) issues.push(`${where}: operationId ${id} used twice`);
      ids.add(id);
      issues.push(...checkParameters(where, path, (op.parameters ?? []) as JsonObject[]));
      for (const requirement of (op.security ?? []) as JsonObject[]) {
        for (const name of Object.keys(requirement)) {
          if (!doc.components.securitySchemes[name]) issues.push(`${where}: unknown security scheme ${name}`);
        }
      }
      for (const tag of (op.tags ?? []) as string[])
        if (!tagNames.has(tag)) issues.push(`${where}: tag ${tag} not listed`);
      const responses = Object.entries((op.responses ?? {}) as Record<string, JsonObject>);
      if (!responses.length) issues.push(`${where}: no responses`);
      for (const [status, response] of responses) {
        if (!STATUS.test(status)) issues.push(`${where}: bad response code ${status}`);
        if (typeof response.description !== 'string') issues.push(`${where} ${status}: no description`);
      }
      for (const media of mediaObjects(op)) {
        if ('example' in media && 'examples' in media)
          issues.push(`${where}: example and examples are exclusive`);
      }
    }
  }
  return issues;
}

function checkParameters(where: string, path: string, parameters: JsonObject[]): string[] {
  const issues: string[] = [];
  const keys = parameters.map((p) => `${String(p.in)}:${String(p.name)}`);
  if (new Set(keys).size !== keys.length) issues.push(`${where}: a parameter is declared twice`);
  for (const p of parameters) {
    if (!['path', 'query', 'header', 'cookie'].includes(p.in as string))
      issues.push(`${where}: bad parameter in ${p.in}`);
    if (!p.schema && !p.content) issues.push(`${where}: parameter ${p.name} has no schema`);
  }
  const declared = parameters.filter((p) => p.in === 'path');
  for (const name of pathParams(path)) {
    const param = declared.find((p) => p.name === name);
    if (!param) issues.push(`${where}: path parameter {${name}} is not declared`);
    else if (param.required !== true) issues.push(`${where}: path parameter {${name}} must be required`);
  }
  for (const p of declared) {
    if (!pathParams(path).includes(p.name as string))
      issues.push(`${where}: path parameter ${p.name} not in the path`);
  }
  return issues;
}

function examplesOf(source: {
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}): [string, unknown][] {
  return [
    ...(source.example !== undefined ? [['example', source.example] as [string, unknown]] : []),
    ...Object.entries(source.examples ?? {}).map(([name, e]) => [name, e.value] as [string, unknown]),
  ];
}

function shapeOf(schema: unknown): Record<string, unknown> {
  const shape = (schema as { shape?: unknown } | undefined)?.shape;
  return shape && typeof shape === 'object' ? (shape as Record<string, unknown>) : {};
}

function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === '$ref' && typeof v === 'string' ? [v] : refsIn(v),
  );
}

function resolvePointer(doc: unknown, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as JsonObject)[key] : undefined),
      doc,
    );
}

function allServers(doc: OpenApiDocument): JsonObject[] {
  const ops = Object.values(doc.paths ?? {}).flatMap((item) => Object.values(item));
  return [...doc.servers, ...ops.flatMap((op) => (op.servers ?? []) as JsonObject[])];
}

function mediaObjects(op: JsonObject): JsonObject[] {
  const bodies = [op.requestBody, ...Object.values((op.responses ?? {}) as JsonObject)] as (
    | JsonObject
    | undefined
  )[];
  return bodies.flatMap((body) => Object.values((body?.content ?? {}) as Record<string, JsonObject>));
}
