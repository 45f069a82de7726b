import { describe, expect, it } from 'vitest';
import { boundingBox, greatCircleMiles } from './geo.ts';

/** One degree of a great circle: 2π × 3958.7613 / 360 miles (about 69.09). */
const DEGREE = (2 * Math.PI * 3958.7613) / 360;

describe('greatCircleMiles', () => {
  it.each([
    ['a degree of latitude', { latitude: 10, longitude: 20 }, { latitude: 11, longitude: 20 }, DEGREE],
    [
      'a degree of longitude on the equator',
      { latitude: 0, longitude: 0 },
      { latitude: 0, longitude: 1 },
      DEGREE,
    ],
    [
      'a degree of longitude at 60° (half as long)',
      { latitude: 60, longitude: 0 },
      { latitude: 60, longitude: 1 },
      34.5454,
    ],
    [
      'across the antimeridian',
      { latitude: 0, longitude: 179.95 },
      { latitude: 0, longitude: -179.95 },
      DEGREE / 10,
    ],
    ['over the north pole', { latitude: 89.9, longitude: 0 }, { latitude: 89.9, longitude: 180 }, DEGREE / 5],
    ['the same point', { latitude: -33.9, longitude: 151.2 }, { latitude: -33.9, longitude: 151.2 }, 0],
    ['half the world', { latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 }, DEGREE * 180],
  ])('%s', (_what, a, b, miles) => {
    expect(greatCircleMiles(a, b)).toBeCloseTo(miles, 2);
    expect(greatCircleMiles(b, a)).toBeCloseTo(miles, 2);
  });
});

describe('boundingBox', () => {
  it('holds the circle: latitude by the radius, longitude wider away from the equator', () => {
    const box = boundingBox({ latitude: 0, longitude: 10 }, DEGREE);
    expect(box.minLatitude).toBeCloseTo(-1, 6);
    expect(box.maxLatitude).toBeCloseTo(1, 6);
    expect(box.longitudes[0]![0]).toBeCloseTo(9, 6);
    expect(box.longitudes[0]![1]).toBeCloseTo(11, 6);
    const north = boundingBox({ latitude: 60, longitude: 10 }, DEGREE);
    expect(north.longitudes[0]![1] - 10).toBeGreaterThan(1.9); // about 2° at 60°
  });

  it('splits at the antimeridian, and takes every longitude around a pole', () => {
    expect(boundingBox({ latitude: 0, longitude: 179.9 }, DEGREE / 2).longitudes.map((r) => r.map((x) => +x.toFixed(2)))).toEqual([
      [179.4, 180],
      [-180, -179.6],
    ]);
    expect(boundingBox({ latitude: 0, longitude: -179.9 }, DEGREE / 2).longitudes.map((r) => r.map((x) => +x.toFixed(2)))).toEqual([
      [179.6, 180],
      [-180, -179.4],
    ]);
    expect(boundingBox({ latitude: 89.8, longitude: 0 }, DEGREE / 2)).toEqual({ minLatitude: expect.closeTo(89.3, 6), maxLatitude: 90, longitudes: [[-180, 180]] });
  }); // prettier-ignore

  it('never leaves out a point within the radius (random points near the edge)', () => {
    let seed = 3;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 2000; i++) {
      const center = { latitude: next() * 178 - 89, longitude: next() * 360 - 180 };
      const miles = 1 + next() * 300;
      const point = { latitude: Math.max(-90, Math.min(90, center.latitude + (next() - 0.5) * 10)), longitude: ((center.longitude + (next() - 0.5) * 20 + 540) % 360) - 180 };
      if (greatCircleMiles(center, point) > miles) continue;
      const box = boundingBox(center, miles);
      expect(point.latitude).toBeGreaterThanOrEqual(box.minLatitude);
      expect(point.latitude).toBeLessThanOrEqual(box.maxLatitude);
      expect(box.longitudes.some(([w, e]) => point.longitude >= w && point.longitude <= e), JSON.stringify({ center, point, miles, box })).toBe(true);
    }
  }); // prettier-ignore
});
