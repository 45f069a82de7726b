import type { FastifyInstance } from 'fastify';
import {
  disableLocationEventProvider,
  enableLocationEventProvider,
  listLocationEventProviders,
} from '@stream/contracts/apis/partner/event-providers';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { listLocationProviders, setLocationProvider } from './event-providers.ts';

/** GET /onboarding/org/{id}/locations/{location_id}/event-providers, PUT and DELETE .../{provider} */
export function registerOrgLocationEventProvidersRoutes(app: FastifyInstance): void {
  const { ctx } = app;
  mount(app, listLocationEventProviders, async (req) =>
    listLocationProviders(ctx, authOf(req), req.params.id, req.params.location_id, req.query),
  );
  mount(app, enableLocationEventProvider, async (req) =>
    setLocationProvider(ctx, authOf(req), req.params.id, req.params.location_id, req.params.provider, true),
  );
  mount(app, disableLocationEventProvider, async (req) =>
    setLocationProvider(ctx, authOf(req), req.params.id, req.params.location_id, req.params.provider, false),
  );
}
