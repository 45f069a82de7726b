import { z } from 'zod';
import { ALL_OPERATIONS, ERROR_CODES, type Operation } from '@stream/contracts';
import { ENVELOPE_SCHEMAS } from '@stream/contracts/envelopes';
import { envelopeOf } from '@stream/contracts/operation';

/**
 * The contract schema an example names:
 * - `<operationId>.request`: the operation's request body;
 * - `<operationId>.<status>`: its response of that status, or the error body of its API's envelope when
 *   the status is one of its error codes' (`requestToken.400`, `getMenu.404`);
 * - `<SchemaId>`: a named schema of the contracts (`.meta({ id })`), such as `Error` or `OAuthTokenResponse`.
 */
export function schemaFor(ref: string): z.ZodType {
  const m = /^(\w+)\.(request|\d{3})$/.exec(ref);
  if (m) {
    const op = operation(m[1]!);
    if (m[2] === 'request') return op.request?.body ?? missing(ref, 'the operation has no request body');
    const status = Number(m[2]);
    const spec = op.responses[status];
    if (spec) return spec.schema ?? z.string().max(0); // a response without a body: no content
    if (op.errors.some((code) => ERROR_CODES[code].status === status))
      return ENVELOPE_SCHEMAS[envelopeOf(op)];
    return missing(ref, `the operation answers neither a response nor an error with status ${status}`);
  }
  const named = (z.globalRegistry as unknown as { _idmap: Map<string, z.ZodType> })._idmap.get(ref);
  return named ?? missing(ref, 'no operation or named schema has this name');
}

/** The error status a reference names (`requestToken.400` → 400), if it names one. */
export function errorStatusOf(ref: string): number | undefined {
  const status = Number(/\.(\d{3})$/.exec(ref)?.[1]);
  return status >= 400 ? status : undefined;
}

function operation(id: string): Operation {
  return (
    ALL_OPERATIONS.find((op) => op.operationId === id) ?? missing(id, 'no operation has this operationId')
  );
}

function missing(ref: string, why: string): never {
  throw new Error(`schema "${ref}": ${why}`);
}
