import type { Operation } from '../../operation.ts';
import { posAuthorize, posToken } from './oauth.ts';
import { posConnectLocation, posDisconnectLocation, posListLocations } from './locations.ts';

export * from './merchant-oauth.ts';
export * from './oauth.ts';
export * from './locations.ts';

/** The endpoints a POS builds for the platform to call. */
export const BECOME_A_POS_OPERATIONS: readonly Operation[] = [
  posAuthorize,
  posToken,
  posListLocations,
  posConnectLocation,
  posDisconnectLocation,
];
