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

/** `longitude` moved by whole turns to lie within 180° of `ref`. */
const near = (longitude: number, ref: number) => longitude - 360 * Math.round((longitude - ref) / 360);

/**
 * Whether the zone (its corners joined in `sequence` order) holds the point. Each corner is taken
 * within 180° of the one before, and the point near the first corner, so a zone across the
 * antimeridian (179.9 to -179.9) is the small shape it is, not the rest of the world.
 */
export function holds(zone: GeoFence, at: Point): boolean {
  const ring: [number, number][] = [];
  for (const c of [...zone.geoCodes].sort((a, b) => a.sequence - b.sequence)) {
    const previous = ring.at(-1)?.[0];
    ring.push([previous === undefined ? c.longitude : near(c.longitude, previous), c.latitude]);
  }
  ring.push(ring[0]!); // GeoJSON rings are closed
  const here = point([near(at.longitude, ring[0]![0]), at.latitude]);
  return booleanPointInPolygon(here, polygon([ring]));
}

/**
 * The zone that decides an address. Zones may overlap (the company file does not forbid it): a zone
 * that does not deliver wins over every zone it overlaps, because the store said no there whatever
 * the zones' order; else the first zone, in the store's order, that holds the point.
 */
export function zoneOf(zones: readonly GeoFence[], at: Point): GeoFence | undefined {
  const holding = zones.filter((zone) => holds(zone, at));
  return holding.find((zone) => !zone.delivery) ?? holding[0];
}

/**
 * What a zone adds to a delivery, in cents: its `additionalFee` (dollars) where it delivers. A zone
 * that does not deliver quotes nothing, as outside every zone.
 */
export function zoneFeeCents(zone: GeoFence): number {
  return zone.delivery ? Math.round(zone.additionalFee * 100) : 0;
}

export interface MetricsRequest extends Address {
  includeDrivingDistance: boolean;
  distanceUOM: 'mi' | 'km';
}

/** Delivery metrics of an address for a store: its zone, distances and fee (cents, where it delivers). */
export async function deliveryMetrics(
  store: HostedStore,
  q: MetricsRequest,
  geo: { geocoderUrl?: string | undefined; routeUrl?: string | undefined } = {},
): Promise<{ metric: DeliveryMetric; messages: HostedMessage[] }> {
  if (store.latitude === null || store.longitude === null) {
    // 422, not 404: the store is there (GET /Stores/{id} answers it); it is its data that is missing.
    throw new ApiError(
      'store_not_located',
      `Store ${store.id} has no latitude and longitude, so no distance or zone can be measured from it; the operator must add them to the company file.`,
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
      // In a zone that does not deliver, the answer is the one outside every zone (not deliverable,
      // 0), with the zone named so the partner can say why.
      deliveryFee: zone ? zoneFeeCents(zone) : 0,
      latitude: to.latitude,
      longitude: to.longitude,
    },
    messages,
  };
}
