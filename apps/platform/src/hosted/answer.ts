import type { HostedMessage } from '@stream/contracts/envelopes';

/** A hosted API's success answer: `{data, message, messagesDetails}`. */
export function hostedAnswer<T>(data: T, message: string, messagesDetails: HostedMessage[] = []) {
  return { data, message, messagesDetails };
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
