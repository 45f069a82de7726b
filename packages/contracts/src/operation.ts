import type { z } from 'zod';
import type { Scope } from './common.ts';
import type { ErrorCode } from './errors.ts';

/** The API reference documents of the spec; each operation belongs to exactly one. */
export const API_DOCS = {
  partner: { title: 'Partner API', slug: 'partner-api', route: '/api/' },
  'become-a-dsp': { title: 'Become a DSP', slug: 'become-a-dsp', route: '/api/become-a-dsp' },
  'become-a-pos': { title: 'Become a POS', slug: 'become-a-pos', route: '/api/become-a-pos' },
  'integrate-with-events': {
    title: 'Integrate with events',
    slug: 'integrate-with-events',
    route: '/api/integrate-with-events',
  },
  'hr-menu': { title: 'Menu API', slug: 'hr-menu', route: '/api/hr/menu' },
  'hr-orders': { title: 'Order API', slug: 'hr-orders', route: '/api/hr/orders' },
  'hr-stores': { title: 'Store API', slug: 'hr-stores', route: '/api/hr/stores' },
} as const;
export type ApiDoc = keyof typeof API_DOCS;

/**
 * Who authenticates how:
 * - `bearer`: a Partner API JWT from `POST /oauth/token` carrying every listed scope.
 * - `webhook-signature`: `Stream-Webhook-Signature`, HMAC-SHA256 of the raw body (partner -> platform).
 * - `event-signature`: `X-Stream-Signature` on events the platform sends to an event provider.
 * - `merchant-bearer`: the merchant's access token a POS or DSP issued the platform over OAuth.
 * - `client-credentials`: client_id and client_secret in the body (OAuth token endpoints).
 * - `none`: open.
 */
export type Security =
  | { kind: 'bearer'; scopes: readonly Scope[] }
  | { kind: 'webhook-signature' }
  | { kind: 'event-signature' }
  | { kind: 'merchant-bearer' }
  | { kind: 'client-credentials' }
  | { kind: 'none' };

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Content type of the body; JSON unless stated. */
  contentType?: string;
  example?: unknown;
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
    query?: z.ZodType;
    params?: z.ZodType;
    headers?: z.ZodType;
    example?: unknown;
  };
  responses: Record<number, ResponseSpec>;
  /** Error codes this operation can answer; each becomes a documented response with its status. */
  errors: readonly ErrorCode[];
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
