import type { Operation } from '../../operation.ts';
import { eventsReceiveEvent } from './event.ts';
import { eventProviderSendWebhook } from './webhook.ts';

export * from './event.ts';
export * from './webhook.ts';

/** Both directions: the endpoint an event provider builds for the platform to call, and its webhook. */
export const INTEGRATE_WITH_EVENTS_OPERATIONS: readonly Operation[] = [
  eventsReceiveEvent,
  eventProviderSendWebhook,
];
