import {
  dspConnectLocation,
  dspDisconnectLocation,
  dspListLocations,
  dspOAuth,
} from '@stream/contracts/apis/become-a-dsp/index';
import {
  posConnectLocation,
  posDisconnectLocation,
  posListLocations,
  posOAuth,
} from '@stream/contracts/apis/become-a-pos/index';

/** Which side of the platform a partner a merchant connects is on. */
export type PartnerType = 'pos' | 'dsp';

/**
 * The operations the platform calls on a POS or DSP, by partner type, for code that works on
 * either side (`PARTNER_OPERATIONS[integration.type].locations`). A caller that knows its side
 * uses the contract's operation directly (`posCreateOrder`, `dspEvent`).
 */
export const PARTNER_OPERATIONS = {
  pos: {
    oauth: posOAuth,
    locations: posListLocations,
    connect: posConnectLocation,
    disconnect: posDisconnectLocation,
  },
  dsp: {
    oauth: dspOAuth,
    locations: dspListLocations,
    connect: dspConnectLocation,
    disconnect: dspDisconnectLocation,
  },
} as const;
