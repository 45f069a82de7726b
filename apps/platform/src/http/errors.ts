import { ERROR_CODES, type ErrorBody, type ErrorCode } from '@stream/contracts/errors';

/** Thrown anywhere in a handler; the error handler turns it into the one error body. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: { path: string; message: string }[],
    status?: number,
  ) {
    super(message);
    this.status = status ?? ERROR_CODES[code].status;
  }
}

export function errorBody(
  code: string,
  message: string,
  requestId?: string,
  details?: { path: string; message: string }[],
): ErrorBody {
  return { error: { code, message, ...(requestId ? { request_id: requestId } : {}), ...(details ? { details } : {}) } };
}

export const notFound = (what: string) => new ApiError('not_found', `No ${what} with that id is visible to you.`);
