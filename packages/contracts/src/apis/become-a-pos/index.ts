import type { Operation } from '../../operation.ts';
import { posAuthorize, posToken } from './oauth.ts';
import { posConnectLocation, posDisconnectLocation, posListLocations } from './locations.ts';
import { posReceiveOrder } from './orders.ts';
import { posSendWebhook } from './webhooks.ts';
import { posGetCatalog } from './catalog.ts';
import { posReceiveEvent } from './menu-events.ts';

export * from './merchant-oauth.ts';
export * from './oauth.ts';
export * from './locations.ts';
export * from './orders.ts';
export * from './webhooks.ts';
export * from './catalog.ts';
export * from './menu-events.ts';

/** The endpoints a POS builds for the platform to call, and the webhook it calls. */
export const BECOME_A_POS_OPERATIONS: readonly Operation[] = [
  posAuthorize,
  posToken,
  posListLocations,
  posConnectLocation,
  posDisconnectLocation,
  posGetCatalog,
  posReceiveOrder,
  posReceiveEvent,
  posSendWebhook,
];
