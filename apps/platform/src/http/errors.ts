import { CodedError } from '@stream/contracts/errors';
import { transitionRefusal, type StateMachine } from '@stream/contracts/states';

export { errorBody } from '@stream/contracts/errors';

/** Thrown anywhere in a handler; the error handler turns it into the one error body. */
export class ApiError extends CodedError {}

export const notFound = (what: string) =>
  new ApiError('not_found', `No ${what} with that id is visible to you.`);

/**
 * Returns `to` when the contracts' machine allows the move from `from`, else throws the 409
 * `invalid_transition` the caller answers with (its details list the moves allowed from `from`); the
 * hosted APIs answer their own 422 `order_status_unprocessable` (their spec keeps 409 for "exists").
 */
export function transition<S extends string>(
  m: StateMachine<S>,
  from: S,
  to: S,
  code: 'invalid_transition' | 'order_status_unprocessable' = 'invalid_transition',
): S {
  const refused = transitionRefusal(m, from, to);
  if (refused) throw new ApiError(code, refused.message, refused.details);
  return to;
}
