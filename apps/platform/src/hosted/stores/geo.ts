/**
 * Distances on the Earth for store search (pure). Great-circle distance by the haversine formula
 * on a sphere of the Earth's mean radius, and the latitude/longitude box that holds every point
 * within a radius, so the database can prefilter on indexed columns before distances are computed.
 */
export const EARTH_RADIUS_MILES = 3958.7613;
const rad = (deg: number) => (deg * Math.PI) / 180;

export interface Point {
  latitude: number;
  longitude: number;
}

export function greatCircleMiles(a: Point, b: Point): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLng = rad(b.longitude - a.longitude);
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Longitude ranges, each from west to east within -180..180. */
export interface Box {
  minLatitude: number;
  maxLatitude: number;
  longitudes: [number, number][];
}

/**
 * Every point within `miles` of `center` lies in this box. Past the antimeridian the longitudes are
 * two ranges; when the circle holds a pole, or reaches around it, every longitude is in.
 */
export function boundingBox(center: Point, miles: number): Box {
  const dLat = (miles / EARTH_RADIUS_MILES) * (180 / Math.PI);
  const minLatitude = center.latitude - dLat;
  const maxLatitude = center.latitude + dLat;
  if (minLatitude <= -90 || maxLatitude >= 90) {
    return {
      minLatitude: Math.max(minLatitude, -90),
      maxLatitude: Math.min(maxLatitude, 90),
      longitudes: [[-180, 180]],
    };
  }
  // The widest longitude span of the circle (at the latitude where it is tangent to a meridian).
  const dLng = Math.asin(Math.min(1, Math.sin(rad(dLat)) / Math.cos(rad(center.latitude)))) * (180 / Math.PI);
  const west = center.longitude - dLng;
  const east = center.longitude + dLng;
  const longitudes: [number, number][] =
    dLng >= 180
      ? [[-180, 180]]
      : west < -180
        ? [
            [west + 360, 180],
            [-180, east],
          ]
        : east > 180
          ? [
              [west, 180],
              [-180, east - 360],
            ]
          : [[west, east]];
  return { minLatitude, maxLatitude, longitudes };
}
