import { DEMO_ADDRESSES } from '@stream/contracts/apis/hr-menu/demo';
import { ApiError } from '../../http/errors.ts';
import type { Point } from './geo.ts';

/**
 * Where an address is. With GEOCODER_URL, a Nominatim-compatible geocoder (`GET /search` with the
 * structured fields, `format=jsonv2`); without one, the built-in address file (the demo's
 * addresses), so the embedded default needs no network.
 */
export interface Address {
  streetNumber: string;
  streetName: string;
  city: string;
  state: string;
  postalCode: string;
}

const TIMEOUT_MS = 5_000;
const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
const notFound = (a: Address) =>
  new ApiError(
    'address_not_found',
    `No place was found for ${a.streetNumber} ${a.streetName}, ${a.city}, ${a.state} ${a.postalCode}; check the address.`,
  );

/**
 * A coordinate as Nominatim answers it (a decimal string) or as a number; anything else is NaN, never
 * what `Number()` makes of it (`""`, `null`, `false` would be 0: a place off the coast of Africa).
 */
const coordinate = (v: unknown): number =>
  typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;

export async function geocode(address: Address, geocoderUrl: string | undefined): Promise<Point> {
  if (!geocoderUrl) {
    const found = DEMO_ADDRESSES.find(
      (d) =>
        same(d.streetNumber, address.streetNumber) &&
        same(d.streetName, address.streetName) &&
        same(d.postalCode, address.postalCode),
    );
    if (!found) throw notFound(address);
    return { latitude: found.latitude, longitude: found.longitude };
  }
  const url = new URL('search', geocoderUrl.endsWith('/') ? geocoderUrl : `${geocoderUrl}/`);
  url.search = new URLSearchParams({
    street: `${address.streetNumber} ${address.streetName}`,
    city: address.city,
    state: address.state,
    postalcode: address.postalCode,
    format: 'jsonv2',
    limit: '1',
  }).toString();
  let places: unknown;
  try {
    const res = await fetch(url, {
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    places = await res.json();
  } catch (err) {
    throw new ApiError(
      'geo_service_unavailable',
      `The geocoder did not answer usefully (${(err as Error).message}); try again.`,
    );
  }
  // An empty list is the address's fault; anything else unusable is the geocoder's (503, not 422).
  const broken = (what: string) =>
    new ApiError('geo_service_unavailable', `The geocoder answered ${what}; try again later.`);
  if (!Array.isArray(places)) throw broken('something other than a list of places');
  const first = places[0] as { lat?: unknown; lon?: unknown } | undefined;
  if (!first) throw notFound(address);
  const latitude = coordinate(first.lat);
  const longitude = coordinate(first.lon);
  if (!(Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180))
    throw broken(`a place without usable coordinates (lat ${String(first.lat)}, lon ${String(first.lon)})`);
  return { latitude, longitude };
}

/**
 * Road distance in meters from an OSRM-compatible route service (`/route/v1/driving/lng,lat;lng,lat`),
 * or undefined when it cannot say (no route, an error, a timeout): the answer then carries a warning.
 */
export async function drivingMeters(routeUrl: string, from: Point, to: Point): Promise<number | undefined> {
  const base = routeUrl.endsWith('/') ? routeUrl : `${routeUrl}/`;
  const url = new URL(
    `route/v1/driving/${from.longitude},${from.latitude};${to.longitude},${to.latitude}?overview=false`,
    base,
  );
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    const body = (await res.json()) as { code?: string; routes?: { distance?: unknown }[] };
    // OSRM answers the distance as a number; null, text or a negative one is no usable route (not 0).
    const meters = body.routes?.[0]?.distance;
    return res.ok &&
      body.code === 'Ok' &&
      typeof meters === 'number' &&
      Number.isFinite(meters) &&
      meters >= 0
      ? meters
      : undefined;
  } catch {
    return undefined;
  }
}
