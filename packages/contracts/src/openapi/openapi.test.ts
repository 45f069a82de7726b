/* eslint-disable @typescript-eslint/no-explicit-any -- the tests read deep into generated JSON */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_OPERATIONS } from '../apis/index.ts';
import { HostedErrorBody } from '../envelopes.ts';
import { ErrorBody } from '../errors.ts';
import { API_DOCS, type ApiDoc, defineOperation, type Operation } from '../operation.ts';
import { buildOpenApiDocument, type OpenApiDocument } from './build.ts';
import { SchemaCollector } from './schemas.ts';
import { checkOpenApiDocument, checkOperation, checkOperations } from './validate.ts';
import { writeOpenApiDocuments } from './write.ts';

const APIS = Object.keys(API_DOCS) as ApiDoc[];

describe('the operations of every API', () => {
  it('carry reference text, a success answer and examples their schemas accept', () => {
    expect(checkOperations(ALL_OPERATIONS)).toEqual([]);
  });

  it('become structurally valid OpenAPI 3.1 documents whose examples pass their schemas', () => {
    for (const api of APIS) {
      const doc = buildOpenApiDocument(api, ALL_OPERATIONS);
      expect(checkOpenApiDocument(doc), api).toEqual([]);
      for (const example of errorExamples(doc)) expect(ErrorBody.safeParse(example).success).toBe(true);
    }
  });

  it("show the signature a certification run's inbox checks", () => {
    const doc = buildOpenApiDocument('partner', ALL_OPERATIONS);
    expect(doc.paths['/certification/runs/{run_id}/webhooks']?.post?.security).toEqual([
      { webhookSignature: [] },
    ]);
    expect(doc.components.securitySchemes.webhookSignature).toMatchObject({
      name: 'Stream-Webhook-Signature',
    });
  });

  it('have operationIds unique across all documents', () => {
    const ids = APIS.flatMap((api) =>
      operationsOf(buildOpenApiDocument(api, ALL_OPERATIONS)).map((op) => op.operationId),
    );
    expect(ids.length).toBe(ALL_OPERATIONS.length);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

// Fixtures: independent of the operations other modules define.
const FixtureAddress = z
  .object({ line_1: z.string(), floor: z.number().int().optional(), country: z.string().default('US') })
  .meta({ id: 'FixtureAddress', description: 'A postal address.' });
const FixtureStore = z
  .object({ _id: z.string(), address: FixtureAddress, count: z.int(), tags: z.array(z.string()) })
  .meta({ id: 'FixtureStore' });
const StrictThing = z.strictObject({ a: z.string() }).meta({ id: 'FixtureStrict' });
const store = { _id: 'sto_1', address: { line_1: '1 Main St', country: 'US' }, count: 2, tags: [] };

const createStore = defineOperation({
  api: 'partner',
  operationId: 'fixtureCreateStore',
  method: 'POST',
  path: '/fixtures/{org_id}/stores',
  summary: 'Create a store',
  description: 'Creates a store.',
  tags: ['Fixture stores'],
  tagDescriptions: { 'Fixture stores': 'Stores of an organisation.' },
  security: { kind: 'bearer', scopes: ['onboarding', 'user'] },
  servedBy: 'platform',
  request: {
    params: z.object({ org_id: z.string().meta({ description: 'The organisation.' }) }),
    query: z.object({ dry_run: z.enum(['true', 'false']).optional() }),
    headers: z.object({ 'idempotency-key': z.string().optional() }),
    body: z.object({ address: FixtureAddress, strict: StrictThing.optional() }),
    bodyContentTypes: ['application/x-www-form-urlencoded'],
    example: { address: { line_1: '1 Main St' } },
  },
  responses: {
    201: { description: 'The store.', schema: FixtureStore, example: store },
    204: { description: 'Dry run: nothing created.' },
  },
  errors: [
    'invalid_json',
    'unsupported_media_type',
    'payload_too_large',
    'validation_failed',
    'missing_token',
    'invalid_token',
    'insufficient_scope',
    'not_found',
  ],
});

const partnerStores = defineOperation({
  api: 'partner',
  operationId: 'fixturePartnerStores',
  method: 'GET',
  path: '/fixtures/stores',
  summary: 'List your stores',
  description: 'The platform calls this.',
  tags: ['Fixture callbacks'],
  security: { kind: 'merchant-bearer' },
  servedBy: 'partner',
  request: {
    query: z.object({ page: z.string().optional() }).meta({ id: 'FixturePageQuery' }),
    example: { page: '2' },
  },
  responses: {
    200: {
      description: 'Stores.',
      schema: z.object({ stores: z.array(FixtureStore) }),
      example: { stores: [store] },
      examples: { empty: { summary: 'No stores', value: { stores: [] } } },
    },
  },
  errors: [],
});

const FIXTURES: readonly Operation[] = [createStore, partnerStores];

describe('buildOpenApiDocument on fixtures', () => {
  const doc = buildOpenApiDocument('partner', FIXTURES);
  const post = doc.paths['/fixtures/{org_id}/stores']?.post as Record<string, any>;
  const get = doc.paths['/fixtures/stores']?.get as Record<string, any>;
  const text = JSON.stringify(doc);

  it('is structurally valid and the fixtures pass their own checks', () => {
    expect(checkOpenApiDocument(doc)).toEqual([]);
    expect(checkOperations(FIXTURES)).toEqual([]);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Partner API');
  });

  it('names each schema once in components, refers to it with $ref and lists no unused one', () => {
    expect(Object.keys(doc.components.schemas).sort()).toEqual([
      'Error',
      'FixtureAddress',
      'FixtureStore',
      'FixtureStrict',
    ]);
    expect(post.requestBody.content['application/json'].schema.properties.address).toEqual({
      $ref: '#/components/schemas/FixtureAddress',
    });
    expect(post.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/FixtureStore',
    });
    expect(doc.components.schemas.FixtureStore?.properties).toMatchObject({
      address: { $ref: '#/components/schemas/FixtureAddress' },
    });
    expect(text).not.toContain('$defs');
    expect(text).not.toContain('$schema');
  });

  it('describes a schema used both ways in its input form, and leaves plain objects open', () => {
    // `country` has a default: optional to a sender, so not required in the one shared component.
    expect(doc.components.schemas.FixtureAddress?.required).toEqual(['line_1']);
    expect(doc.components.schemas.FixtureStore).not.toHaveProperty('additionalProperties');
    expect(doc.components.schemas.FixtureStrict?.additionalProperties).toBe(false);
  });

  it('drops the ±2^53 bounds Zod puts on integers', () => {
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    expect(doc.components.schemas.FixtureStore?.properties).toMatchObject({ count: { type: 'integer' } });
  });

  it('turns params, query and headers into parameters, with examples when there is no body', () => {
    expect(post.parameters).toEqual([
      {
        name: 'org_id',
        in: 'path',
        required: true,
        description: 'The organisation.',
        schema: { type: 'string' },
      },
      { name: 'dry_run', in: 'query', required: false, schema: { type: 'string', enum: ['true', 'false'] } },
      { name: 'idempotency-key', in: 'header', required: false, schema: { type: 'string' } },
    ]);
    expect(get.parameters).toEqual([
      { name: 'page', in: 'query', required: false, schema: { type: 'string' }, example: '2' },
    ]);
  });

  it('documents the body under each content type with its example', () => {
    expect(post.requestBody.required).toBe(true);
    expect(Object.keys(post.requestBody.content)).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    expect(post.requestBody.content['application/json'].example).toEqual({
      address: { line_1: '1 Main St' },
    });
    expect(post.responses['204']).toEqual({ description: 'Dry run: nothing created.' });
    expect(Object.keys(get.responses['200'].content['application/json'].examples)).toEqual([
      'example',
      'empty',
    ]);
  });

  it('groups error codes by status, each with its meaning and an example', () => {
    expect(Object.keys(post.responses)).toEqual(['201', '204', '400', '401', '403', '404', '413', '415']);
    const unauthorized = post.responses['401'];
    expect(unauthorized.description).toContain('`missing_token`: No `Authorization: Bearer` header.');
    expect(unauthorized.description).toContain('`invalid_token`');
    const media = unauthorized.content['application/json'];
    expect(media.schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(Object.keys(media.examples)).toEqual(['missing_token', 'invalid_token']);
    expect(media.examples.invalid_token.value.error.code).toBe('invalid_token');
    expect(Object.keys(post.responses['400'].content['application/json'].examples)).toEqual([
      'invalid_json',
      'validation_failed',
    ]);
    for (const example of errorExamples(doc)) expect(ErrorBody.safeParse(example).success).toBe(true);
  });

  it('maps security, servers, tags and direction groups', () => {
    expect(post.security).toEqual([{ bearerAuth: ['onboarding', 'user'] }]);
    expect(get.security).toEqual([{ merchantBearer: [] }]);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearerAuth', 'merchantBearer']);
    expect(doc.components.securitySchemes.bearerAuth?.description).toContain(
      '`onboarding`: `fixtureCreateStore`',
    );
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'http://localhost:8080' })]);
    expect(post.servers).toBeUndefined();
    expect(get.servers[0].url).toBe('{partner_base_url}');
    expect(doc.tags).toEqual([
      { name: 'Fixture stores', description: 'Stores of an organisation.' },
      { name: 'Fixture callbacks' },
    ]);
    expect(doc['x-tagGroups']).toEqual([
      { name: 'Endpoints you build', tags: ['Fixture callbacks'] },
      { name: 'Calls you make', tags: ['Fixture stores'] },
    ]);
  });

  it('refers a named recursive schema to itself, and asks for a name when it has none', () => {
    const Modifier: z.ZodType = z
      .object({
        name: z.string(),
        get modifiers() {
          return z.array(Modifier);
        },
      })
      .meta({ id: 'FixtureModifier' });
    const schemas = new SchemaCollector();
    expect(schemas.toSchema(Modifier, 'output', 'here')).toEqual({
      $ref: '#/components/schemas/FixtureModifier',
    });
    expect(schemas.components.FixtureModifier?.properties).toMatchObject({
      modifiers: { type: 'array', items: { $ref: '#/components/schemas/FixtureModifier' } },
    });
    const Anonymous: z.ZodType = z.object({
      get children() {
        return z.array(Anonymous);
      },
    });
    expect(() => schemas.toSchema(z.object({ a: Anonymous }), 'output', 'fixtureOp body')).toThrow(
      'fixtureOp body: a recursive schema needs a name',
    );
  });

  it('builds a valid empty document for an API with no operations', () => {
    const empty = buildOpenApiDocument('hr-menu', FIXTURES);
    expect(empty.paths).toEqual({});
    expect(checkOpenApiDocument(empty)).toEqual([]);
  });
});

describe('the checks catch broken contracts', () => {
  it('reports bad examples, missing text and undeclared path parameters', () => {
    const broken = {
      ...createStore,
      operationId: 'fixtureBroken',
      path: '/fixtures/{org_id}/stores/{store_id}',
      summary: '',
      request: { ...createStore.request, example: { address: { line_1: 7 } } },
      responses: { 201: { description: 'x', schema: FixtureStore, example: { _id: 1 } } },
      errors: ['not_found'],
    } as unknown as Operation;
    const issues = checkOperation(broken);
    expect(issues).toEqual(
      expect.arrayContaining([
        'fixtureBroken: missing summary',
        expect.stringContaining('fixtureBroken: request example example is rejected'),
        expect.stringContaining('fixtureBroken: response 201 example example is rejected'),
        'fixtureBroken: path parameter {store_id} has no schema in request.params',
      ]),
    );
    expect(checkOperations([createStore, createStore])).toEqual([
      'fixtureCreateStore: operationId used twice',
    ]);
  });

  it('reports an operation of the platform that validates its request but does not declare validation_failed', () => {
    const errors = createStore.errors.filter((code) => code !== 'validation_failed');
    const silent = { ...createStore, servedBy: 'platform', errors } as Operation;
    expect(checkOperation(silent)).toEqual([
      'fixtureCreateStore: validates its request but does not declare validation_failed',
    ]);
    // An operation a partner serves is checked by the partner, not by the platform.
    expect(checkOperation({ ...silent, servedBy: 'partner' })).toEqual([]);
  });

  it('reports an operation of the platform that takes a body but does not declare the errors of reading it', () => {
    const errors = ['validation_failed', 'not_found'] as const;
    expect(checkOperation({ ...createStore, errors } as unknown as Operation)).toEqual([
      'fixtureCreateStore: takes a body but does not declare invalid_json',
      'fixtureCreateStore: takes a body but does not declare unsupported_media_type',
      'fixtureCreateStore: takes a body but does not declare payload_too_large',
    ]);
    expect(checkOperation({ ...createStore, errors, servedBy: 'partner' } as unknown as Operation)).toEqual(
      [],
    );
  });

  it('reports an operation that checks a signature its security does not declare', () => {
    const open = {
      ...createStore,
      security: { kind: 'none' },
      errors: [
        'invalid_json',
        'unsupported_media_type',
        'payload_too_large',
        'validation_failed',
        'signature_mismatch',
      ],
    } as Operation;
    expect(checkOperation(open)).toEqual([
      'fixtureCreateStore: answers signature_mismatch but its security is none: declare the signature it checks',
    ]);
    expect(
      checkOperation({ ...open, security: { kind: 'webhook-signature', checkedBy: 'handler' } }),
    ).toEqual([]);
  });

  it('reports dangling $refs and undeclared path parameters in a document', () => {
    const doc = buildOpenApiDocument('partner', FIXTURES);
    const bad = structuredClone(doc);
    bad.paths['/fixtures/{org_id}/stores/{store_id}'] = bad.paths['/fixtures/{org_id}/stores'] ?? {};
    delete bad.components.schemas.FixtureAddress;
    expect(checkOpenApiDocument(bad)).toEqual(
      expect.arrayContaining([
        '$ref #/components/schemas/FixtureAddress does not resolve',
        'POST /fixtures/{org_id}/stores/{store_id}: path parameter {store_id} is not declared',
        expect.stringContaining('operationId fixtureCreateStore used twice'),
      ]),
    );
  });
});

describe('error envelopes', () => {
  it("documents a hosted API operation's errors in its {data, message, messagesDetails} envelope", () => {
    const op = defineOperation({
      api: 'hr-menu',
      operationId: 'fixtureGetMenu',
      method: 'GET',
      path: '/Menus/{id}',
      summary: 'Read a menu',
      description: 'A fixture of the hosted Menu API.',
      tags: ['Menus'],
      security: { kind: 'none' },
      servedBy: 'platform',
      request: { params: z.object({ id: z.string() }), example: { id: '12' } },
      responses: {
        200: { description: 'The menu.', schema: z.object({ data: z.null() }), example: { data: null } },
      },
      errors: ['validation_failed', 'not_found'],
    });
    expect(checkOperation(op)).toEqual([]);
    const doc = buildOpenApiDocument('hr-menu', [op]);
    expect(checkOpenApiDocument(doc)).toEqual([]);
    for (const [status, code] of [
      ['400', 'validation_failed'],
      ['404', 'not_found'],
    ] as const) {
      const content = (doc.paths as any)['/Menus/{id}'].get.responses[status].content['application/json'];
      expect(content.schema).toEqual({ $ref: '#/components/schemas/HostedError' });
      const example = HostedErrorBody.parse(content.examples[code].value);
      expect(example.messagesDetails[0]).toMatchObject({ id: code, messageType: 'ERROR' });
      expect(ErrorBody.safeParse(content.examples[code].value).success).toBe(false);
    }
  });
});

describe('writeOpenApiDocuments', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one document per API reference, operations or not', () => {
    const written = writeOpenApiDocuments(dir, FIXTURES);
    expect(readdirSync(dir).sort()).toEqual(APIS.map((api) => `${API_DOCS[api].slug}.json`).sort());
    expect(written.find((w) => w.file.endsWith('partner-api.json'))?.operations).toBe(2);
    const menu = JSON.parse(readFileSync(join(dir, 'hr-menu.json'), 'utf8')) as OpenApiDocument;
    expect(menu.info.title).toBe('Menu API');
    expect(checkOpenApiDocument(menu)).toEqual([]);
  });
});

function operationsOf(doc: OpenApiDocument): Record<string, any>[] {
  return Object.values(doc.paths).flatMap((item) => Object.values(item));
}

/** Every example value under a 4xx/5xx response of the document. */
function errorExamples(doc: OpenApiDocument): unknown[] {
  return operationsOf(doc).flatMap((op) =>
    Object.entries(op.responses as Record<string, any>)
      .filter(([status]) => Number(status) >= 400)
      .flatMap(([, response]) => Object.values(response.content ?? {}))
      // Error bodies only: an answer an operation documents with its own schema (a POS's 400) is checked by it.
      .filter((media: any) => media.schema?.$ref === '#/components/schemas/Error')
      .flatMap((media: any) => [
        media.example,
        ...Object.values(media.examples ?? {}).map((e: any) => e.value),
      ])
      .filter((example) => example !== undefined),
  );
}
