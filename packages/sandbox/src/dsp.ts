import type { FastifyInstance } from 'fastify';
import {
  dspConnectLocation,
  dspDisconnectLocation,
  dspGetLocationConnection,
  dspListLocations,
  dspOAuth,
  type DspLocation,
} from '@stream/contracts/apis/become-a-dsp/index';
import { parse, route } from './http.ts';
import { changeConnection, locationOf } from './locations.ts';
import { registerMerchantOAuth } from './oauth.ts';
import { registerDspMenus } from './menus.ts';
import { registerDspEvents } from './orders.ts';
import type { Sim } from './sim.ts';

/** The simulated DSP: merchant OAuth, stores, store connection, the events it receives and the menus it downloads. */
export function registerDsp(app: FastifyInstance, sim: Sim): void {
  registerMerchantOAuth(app, sim, { ...dspOAuth, title: 'Sandbox DSP' });
  route(app, dspListLocations, async (req) => {
    const account = sim.authenticate(req);
    const locations: DspLocation[] = account.locations.map(({ provider_id, name, address }) => ({
      provider_id,
      name,
      address,
    }));
    return { locations };
  });
  route(app, dspConnectLocation, async (req) => changeConnection(sim, req, dspConnectLocation, true));
  route(app, dspDisconnectLocation, async (req) => changeConnection(sim, req, dspDisconnectLocation, false));
  route(app, dspGetLocationConnection, async (req) => {
    const account = sim.authenticate(req);
    const { location_id } = parse(dspGetLocationConnection, req).query;
    locationOf(account, location_id);
    return { location_id, connected: sim.state.isConnected(account.id, location_id) };
  });
  registerDspEvents(app, sim);
  registerDspMenus(app, sim);
}
