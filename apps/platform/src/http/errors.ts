import { CodedError } from '@stream/contracts/errors';

export { errorBody } from '@stream/contracts/errors';

/** Thrown anywhere in a handler; the error handler turns it into the one error body. */
export class ApiError extends CodedError {}

export const notFound = (what: string) =>
  new ApiError('not_found', `No ${what} with that id is visible to you.`);
