import { STATUS_CODES } from 'node:http';
import { ENVELOPE_SCHEMAS, envelopeBody, type ErrorEnvelope } from '../envelopes.ts';
import { ERROR_CODES, type ErrorCode } from '../errors.ts';
import { envelopeOf, type Operation } from '../operation.ts';
import { type JsonObject, type SchemaCollector } from './schemas.ts';

/** What the platform answers with `code`, in `envelope`: the error body with the code's own sentence. */
export function errorExample(code: ErrorCode, envelope: ErrorEnvelope = 'stream'): unknown {
  const details = code === 'validation_failed' ? [{ path: 'body.name', message: 'Required' }] : undefined;
  return envelopeBody(envelope, {
    code,
    message: ERROR_CODES[code].description,
    requestId: 'req_8f14e45fceea467a9b1c2d3e4f5a6b7c',
    ...(details ? { details } : {}),
  });
}

/** The op's error codes grouped by HTTP status, in the order they are declared. */
export function errorsByStatus(op: Operation): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of op.errors) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/**
 * One response per error status: the codes it can carry with their meaning, the Error schema and one
 * example per code. A status the op documents itself in `responses` is left to that entry.
 */
export function errorResponses(op: Operation, schemas: SchemaCollector): Record<string, JsonObject> {
  const responses: Record<string, JsonObject> = {};
  for (const [status, codes] of errorsByStatus(op)) {
    if (op.responses[status]) continue;
    const envelope = envelopeOf(op);
    const schema = schemas.toSchema(ENVELOPE_SCHEMAS[envelope], 'output', `${op.operationId} ${status}`);
    const where = envelope === 'hosted' ? '`messagesDetails[0].id`' : '`error.code`';
    responses[status] = {
      description: `${STATUS_CODES[status] ?? 'Error'}. ${where} is one of:\n\n${codes
        .map((code) => `- \`${code}\`: ${ERROR_CODES[code].description}`)
        .join('\n')}`,
      content: {
        'application/json': {
          schema,
          examples: Object.fromEntries(
            codes.map((code) => [
              code,
              { summary: ERROR_CODES[code].description, value: errorExample(code, envelope) },
            ]),
          ),
        },
      },
    };
  }
  return responses;
}
