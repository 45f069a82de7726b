import type { Operation } from '../../operation.ts';
import { eventsReceiveEvent } from './event.ts';

export * from './event.ts';

/** The endpoints an event provider builds for the platform to call. */
export const INTEGRATE_WITH_EVENTS_OPERATIONS: readonly Operation[] = [eventsReceiveEvent];
