import type { Operation } from '../../operation.ts';
import { dspAuthorize, dspToken } from './oauth.ts';
import {
  dspConnectLocation,
  dspDisconnectLocation,
  dspGetLocationConnection,
  dspListLocations,
} from './locations.ts';
import { dspReceiveEvent } from './events.ts';
import { dspSendWebhook } from './orders.ts';
import { downloadMenuFile, dspGetMenuFile } from './menu-file.ts';

export * from './oauth.ts';
export * from './locations.ts';
export * from './events.ts';
export * from './orders.ts';
export * from './menu-file.ts';

/** The endpoints a DSP builds for the platform to call, and the webhook it calls. */
export const BECOME_A_DSP_OPERATIONS: readonly Operation[] = [
  dspAuthorize,
  dspToken,
  dspListLocations,
  dspConnectLocation,
  dspGetLocationConnection,
  dspDisconnectLocation,
  dspReceiveEvent,
  dspGetMenuFile,
  dspSendWebhook,
  downloadMenuFile,
];
