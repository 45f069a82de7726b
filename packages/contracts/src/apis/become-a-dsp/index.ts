import type { Operation } from '../../operation.ts';
import { dspAuthorize, dspToken } from './oauth.ts';
import {
  dspConnectLocation,
  dspDisconnectLocation,
  dspGetLocationConnection,
  dspListLocations,
} from './locations.ts';

export * from './oauth.ts';
export * from './locations.ts';

/** The endpoints a DSP builds for the platform to call. */
export const BECOME_A_DSP_OPERATIONS: readonly Operation[] = [
  dspAuthorize,
  dspToken,
  dspListLocations,
  dspConnectLocation,
  dspGetLocationConnection,
  dspDisconnectLocation,
];
