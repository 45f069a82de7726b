import type { z } from 'zod';
import type { Scope } from './common.ts';
import type { ErrorEnvelope } from './envelopes.ts';
import type { ErrorCode } from './errors.ts';

/**
 * The API reference documents of the spec; each operation belongs to exactly one. `intro` opens the
 * generated OpenAPI document (Markdown): who calls whom, and how to authenticate. `envelope` is how
 * the API's errors are wrapped (`envelopes.ts`); the platform serves each API in its own Fastify
 * scope with that envelope's error and not-found handlers.
 */
export const API_DOCS = {
  partner: {
    envelope: 'stream',
    title: 'Partner API',
    slug: 'partner-api',
    route: '/api/',
    intro:
      'The calls you, a partner, make to the platform: request a token with `POST /oauth/token` (your ' +
      '`client_id` and `client_secret`), then manage partner tokens, create organisations, onboard and bind ' +
      'locations, open single-sign-on sessions and read billing reports with that bearer token. Each endpoint ' +
      'names the scope its token must carry.',
  },
  'become-a-dsp': {
    envelope: 'stream',
    title: 'Become a DSP',
    slug: 'become-a-dsp',
    route: '/api/become-a-dsp',
    intro:
      'Both sides of a DSP (marketplace) integration. **Endpoints you build**: the endpoints you (the DSP) ' +
      "build, which the platform calls with the merchant's bearer token: OAuth authorize and token exchange, " +
      'locations and their connection, the menu file and the event endpoint that receives menus, pauses and ' +
      'order outcomes. **Calls you make**: the webhooks you send to the platform (new and cancelled orders, ' +
      'store status, delivery status), signed with `Stream-Webhook-Signature`.',
  },
  'become-a-pos': {
    envelope: 'stream',
    title: 'Become a POS',
    slug: 'become-a-pos',
    route: '/api/become-a-pos',
    intro:
      'Both sides of a POS integration. **Endpoints you build**: the endpoints you (the POS) build, which the ' +
      "platform calls with the merchant's bearer token: OAuth authorize and token exchange, catalog, " +
      'locations, location connection, orders and menu-publication events. **Calls you make**: the webhooks ' +
      'you send to the platform (catalog and order status changes, location status, in-store orders), signed ' +
      'with `Stream-Webhook-Signature`.',
  },
  'integrate-with-events': {
    envelope: 'stream',
    title: 'Integrate with events',
    slug: 'integrate-with-events',
    route: '/api/integrate-with-events',
    intro:
      'Both sides of an event-provider (delivery) integration. **Endpoints you build**: the `POST /event` ' +
      'endpoint you (the event provider) build, which the platform calls with order events signed with ' +
      '`X-Stream-Signature`. **Calls you make**: the webhooks you send to the platform (driver assignment, ' +
      'delivery status), signed with `Stream-Webhook-Signature`.',
  },
  'hr-menu': {
    envelope: 'hosted',
    title: 'Menu API',
    slug: 'hr-menu',
    route: '/api/hr/menu',
    intro:
      "The hosted restaurant Menu API the platform serves: read and change a store's menu and see what is " +
      'out of stock. Name the store in the `X-Store` header. Every answer is `{data, message, messagesDetails}`.',
  },
  'hr-orders': {
    envelope: 'hosted',
    title: 'Order API',
    slug: 'hr-orders',
    route: '/api/hr/orders',
    intro:
      'The hosted restaurant Order API the platform serves: price, place, read, cancel and pay orders. Name ' +
      'the store in `X-Store` (and the service type in `X-Service-Type` where stated). Every answer is ' +
      '`{data, message, messagesDetails}`.',
  },
  'hr-stores': {
    envelope: 'hosted',
    title: 'Store API',
    slug: 'hr-stores',
    route: '/api/hr/stores',
    intro:
      'The hosted restaurant Store API the platform serves: look up stores, delivery metrics, geofences, ' +
      "credentials, order and service types, and send e-mail on a store's behalf. Store search takes the " +
      '`X-Company` header. Every answer is `{data, message, messagesDetails}`.',
  },
} as const satisfies Record<
  string,
  { envelope: ErrorEnvelope; title: string; slug: string; route: string; intro: string }
>;
export type ApiDoc = keyof typeof API_DOCS;

/**
 * Who authenticates how:
 * - `bearer`: a Partner API JWT from `POST /oauth/token` carrying every listed scope.
 * - `webhook-signature`: `Stream-Webhook-Signature`, HMAC-SHA256 of the raw body (partner -> platform).
 *   Checked before the handler, for the partner its `partner_id` or `partner_slug` parameter names;
 *   `checkedBy: 'handler'` where the handler checks it itself (a certification run's inbox keeps each
 *   webhook with its verdict before refusing it, and its partner is the run's).
 * - `event-signature`: `X-Stream-Signature` on events the platform sends to an event provider.
 * - `merchant-bearer`: the merchant's access token a POS or DSP issued the platform over OAuth.
 * - `client-credentials`: client_id and client_secret in the body (OAuth token endpoints).
 * - `none`: open.
 */
export type Security =
  | { kind: 'bearer'; scopes: readonly Scope[] }
  | { kind: 'webhook-signature'; checkedBy?: 'handler' }
  | { kind: 'event-signature' }
  | { kind: 'merchant-bearer' }
  | { kind: 'client-credentials' }
  | { kind: 'none' };

/** A named example (OpenAPI Example Object); use when one example cannot show every case. */
export interface NamedExample {
  summary: string;
  description?: string;
  value: unknown;
}

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Content type of the body; JSON unless stated. */
  contentType?: string;
  example?: unknown;
  /** More examples by name (e.g. one per event type), each tested against `schema` like `example`. */
  examples?: Record<string, NamedExample>;
  headers?: Record<string, { description: string; schema: z.ZodType }>;
}

export interface Operation {
  api: ApiDoc;
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path template, e.g. `/tokens/{token_id}`. */
  path: string;
  summary: string;
  description: string;
  tags: readonly string[];
  security: Security;
  /** Who serves this operation: the platform, or the partner (an endpoint the partner builds). */
  servedBy: 'platform' | 'partner';
  request?: {
    body?: z.ZodType;
    /** Body content types accepted besides JSON (e.g. form-urlencoded for OAuth). */
    bodyContentTypes?: readonly string[];
    /** The largest body in bytes, when not the server's (`BODY_LIMIT`); larger is 413 `payload_too_large`. */
    bodyLimit?: number;
    /**
     * Object keys whose value is null are dropped before the body is checked: a partner's optional
     * fields may come as null (many serialisers write them so), and a required one left null is then
     * named as missing. For bodies where null never means anything but "not given".
     */
    nullIsAbsent?: boolean;
    query?: z.ZodType;
    params?: z.ZodType;
    headers?: z.ZodType;
    /** The body's example; with no body, example values of the parameters (params, query, headers) by name. */
    example?: unknown;
    /** More body examples by name (e.g. one per webhook type), each tested against `body`. */
    examples?: Record<string, NamedExample>;
  };
  responses: Record<number, ResponseSpec>;
  /** How this operation's errors are wrapped, when not its API's (`API_DOCS[api].envelope`). */
  envelope?: ErrorEnvelope;
  /** Error codes this operation can answer; each becomes a documented response with its status. */
  errors: readonly ErrorCode[];
  /** Descriptions of tags this operation introduces (a tag's description may be given on any one op). */
  tagDescriptions?: Record<string, string>;
  deprecated?: boolean;
  /** A guide that explains this operation further. */
  externalDocs?: { url: string; description?: string };
}

/** The envelope an operation's errors are answered in: its own, else its API's. */
export function envelopeOf(op: Pick<Operation, 'api' | 'envelope'>): ErrorEnvelope {
  return op.envelope ?? API_DOCS[op.api].envelope;
}

/** Identity at runtime; keeps the literal types so handlers infer their input types. */
export function defineOperation<const O extends Operation>(op: O): O {
  return op;
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;
export type BodyOf<O extends Operation> = O['request'] extends { body: infer B } ? Infer<B> : undefined;
export type QueryOf<O extends Operation> = O['request'] extends { query: infer Q } ? Infer<Q> : undefined;
export type ParamsOf<O extends Operation> = O['request'] extends { params: infer P } ? Infer<P> : undefined;
export type HeadersOf<O extends Operation> = O['request'] extends { headers: infer H } ? Infer<H> : undefined;

/** Converts an OpenAPI path template to Fastify's `:param` form. */
export function fastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}
