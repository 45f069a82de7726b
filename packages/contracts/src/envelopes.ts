import { z } from 'zod';
import { ErrorBody, errorBody, listedDetails, type ErrorDetail } from './errors.ts';

/**
 * How an API wraps its errors. Each API of `API_DOCS` names its envelope (an operation may override
 * it); the server answers every error of that API's routes, including validation, parse, 404, 405
 * and 500, in that envelope.
 * - `stream`: the platform's own `{error: {code, message, request_id, details?}}` (`ErrorBody`):
 *   the Partner API, the webhooks partners send, the endpoints partners build.
 * - `hosted`: the hosted restaurant APIs' `{data, message, messagesDetails}` (`HostedErrorBody`).
 */
export type ErrorEnvelope = 'stream' | 'hosted';

/** One entry of a hosted answer's `messagesDetails`. */
export const HostedMessage = z
  .object({
    id: z.string().meta({
      description: 'What the message is about: the error code, or the offending field (`body.displayName`).',
    }),
    message: z.string(),
    messageType: z.enum(['ERROR', 'WARNING', 'INFO']),
  })
  .meta({ id: 'HostedMessage' });
export type HostedMessage = z.infer<typeof HostedMessage>;

/** A hosted restaurant API's error answer: no data, a sentence, and one ERROR entry per problem. */
export const HostedErrorBody = z
  .object({
    data: z.null(),
    message: z.string().meta({ description: 'A sentence that says what was wrong and how to fix it.' }),
    messagesDetails: z.array(HostedMessage).min(1).meta({
      description:
        'First the error code (`id`), then one entry per offending field for validation errors (at most 100, then one `more_problems` entry saying how many more). The request id is the `X-Request-Id` header.',
    }),
  })
  .meta({ id: 'HostedError', description: 'The error answer of the hosted restaurant APIs.' });
export type HostedErrorBody = z.infer<typeof HostedErrorBody>;

/** What went wrong, before it is wrapped in an API's envelope. */
export interface ErrorFacts {
  code: string;
  message: string;
  requestId?: string;
  details?: ErrorDetail[];
}

/** The hosted envelope of an error: the code first, then each offending field. */
export function hostedErrorBody(e: ErrorFacts): HostedErrorBody {
  return {
    data: null,
    message: e.message,
    messagesDetails: [
      { id: e.code, message: e.message, messageType: 'ERROR' },
      ...listedDetails(e.details ?? []).map((d) => ({
        id: d.path,
        message: d.message,
        messageType: 'ERROR' as const,
      })),
    ],
  };
}

/** The error body of `envelope` for these facts. */
export function envelopeBody(envelope: ErrorEnvelope, e: ErrorFacts): unknown {
  return envelope === 'hosted' ? hostedErrorBody(e) : errorBody(e.code, e.message, e.requestId, e.details);
}

/** The Zod schema of `envelope`'s error body (OpenAPI, tests). */
export const ENVELOPE_SCHEMAS: Record<ErrorEnvelope, z.ZodType> = {
  stream: ErrorBody,
  hosted: HostedErrorBody,
};
