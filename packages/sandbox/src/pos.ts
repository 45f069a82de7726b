import type { FastifyInstance } from 'fastify';
import {
  posConnectLocation,
  posDisconnectLocation,
  posListLocations,
  posOAuth,
  type PosLocation,
} from '@stream/contracts/apis/become-a-pos/index';
import { route } from './http.ts';
import { changeConnection } from './locations.ts';
import { registerMerchantOAuth } from './oauth.ts';
import { registerPosCatalog } from './menus.ts';
import { registerPosOrders } from './orders.ts';
import type { Sim } from './sim.ts';

/** The simulated POS: merchant OAuth, locations, location connection, orders, catalog and menu outcomes. */
export function registerPos(app: FastifyInstance, sim: Sim): void {
  registerMerchantOAuth(app, sim, { ...posOAuth, title: 'Sandbox POS' });
  route(app, posListLocations, async (req) => {
    const account = sim.authenticate(req);
    const locations: PosLocation[] = account.locations.map((l) => ({
      ...l,
      connection_status: sim.state.isConnected(account.id, l.provider_id) ? 'online' : 'offline',
    }));
    return { locations };
  });
  route(app, posConnectLocation, async (req) => changeConnection(sim, req, posConnectLocation, true));
  route(app, posDisconnectLocation, async (req) => changeConnection(sim, req, posDisconnectLocation, false));
  registerPosOrders(app, sim);
  registerPosCatalog(app, sim);
}
