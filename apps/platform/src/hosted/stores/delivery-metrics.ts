import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import { point, polygon } from '@turf/helpers';
import type { DeliveryMetric, GeoFence } from '@stream/contracts/apis/hr-stores/index';
import type { HostedMessage } from '@stream/contracts/envelopes';
import { ApiError } from '../../http/errors.ts';
import type { HostedStore } from '../access.ts';
import { greatCircleMiles, type Point } from './geo.ts';
import { drivingMeters, geocode, type Address } from './geocoder.ts';

const KM_PER_MILE = 1.609344;
const round2 = (n: number) => Math.round(n * 100) / 100;

/** The first of the store's zones that holds the point (a zone's corners joined in `sequence` order). */
export function zoneOf(zones: readonly GeoFence[], at: Point): GeoFence | undefined {
  const here = point([at.longitude, at.latitude]);
  return zones.find((zone) => {
    const ring = [...zone.geoCodes]
      .sort((a, b) => a.sequence - b.sequence)
      .map((c) => [c.longitude, c.latitude]);
    ring.push(ring[0]!); // GeoJSON rings are closed
    return booleanPointInPolygon(here, polygon([ring]));
  });
}

export interface MetricsRequest extends Address {
  includeDrivingDistance: boolean;
  distanceUOM: 'mi' | 'km';
}

/** Delivery metrics of an address for a store: its zone, distances and fee (cents). */
export async function deliveryMetrics(
  store: HostedStore,
  q: MetricsRequest,
  geo: { geocoderUrl?: string | undefined; routeUrl?: string | undefined } = {},
): Promise<{ metric: DeliveryMetric; messages: HostedMessage[] }> {
  if (store.latitude === null || store.longitude === null) {
    throw new ApiError(
      'not_found',
      `Store ${store.id} has no position; the operator must give it latitude and longitude.`,
    );
  }
  const from = { latitude: store.latitude, longitude: store.longitude };
  const to = await geocode(q, geo.geocoderUrl);
  const perMile = q.distanceUOM === 'km' ? KM_PER_MILE : 1;
  const zone = zoneOf(store.geoFences, to);
  const messages: HostedMessage[] = [];
  let drivingDistance: number | null = null;
  if (q.includeDrivingDistance) {
    const meters = geo.routeUrl ? await drivingMeters(geo.routeUrl, from, to) : undefined;
    if (meters === undefined) {
      messages.push({
        id: 'drivingDistance',
        message: geo.routeUrl
          ? 'The route service found no route or did not answer; drivingDistance is null.'
          : 'No route service is configured (ROUTE_URL); drivingDistance is null.',
        messageType: 'WARNING',
      });
    } else drivingDistance = round2((meters / 1000 / KM_PER_MILE) * perMile);
  }
  return {
    metric: {
      zoneName: zone?.id ?? null,
      deliverable: zone?.delivery ?? false,
      distance: round2(greatCircleMiles(from, to) * perMile),
      drivingDistance,
      distanceUOM: q.distanceUOM,
      deliveryFee: zone ? Math.round(zone.additionalFee * 100) : 0,
      latitude: to.latitude,
      longitude: to.longitude,
    },
    messages,
  };
}
