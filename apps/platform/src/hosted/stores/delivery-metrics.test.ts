import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_STORE_ID } from '@stream/contracts/apis/hr-menu/demo';
import { startTestPlatform, type TestPlatform } from '../../../test/platform.ts';
import { grantCompany, importCompany } from '../companies.ts';
import { hostedSuite, hostedWorld, type HostedWorld } from '../testing.ts';
import { zoneOf } from './delivery-metrics.ts';
import { greatCircleMiles } from './geo.ts';

const STORE = { latitude: 40.7446, longitude: -73.9967 };
const query = (street: [string, string], extra = '') =>
  `/Stores/${DEMO_STORE_ID}/DeliveryMetrics?streetNumber=${street[0]}&streetName=${encodeURIComponent(street[1])}&city=New%20York&state=NY&postalCode=10011${extra}`;

describe('zoneOf (point in polygon)', () => {
  // An L: the top bar, and the left leg below it; the notch to the lower right is outside.
  const L = {
    id: 'L',
    delivery: true,
    additionalFee: 0,
    driverCompensation: 0,
    geoCodes: [
      { sequence: 3, latitude: 1, longitude: 2 },
      { sequence: 1, latitude: 2, longitude: 0 },
      { sequence: 2, latitude: 2, longitude: 2 },
      { sequence: 4, latitude: 1, longitude: 1 },
      { sequence: 5, latitude: 0, longitude: 1 },
      { sequence: 6, latitude: 0, longitude: 0 },
    ],
  };
  it.each([
    ['the top bar', 1.5, 1.5, 'L'],
    ['the leg', 0.5, 0.5, 'L'],
    ['the notch (inside the box, outside the zone)', 0.5, 1.5, undefined],
    ['outside the box', 3, 3, undefined],
  ])('%s', (_what, latitude, longitude, zone) => {
    expect(zoneOf([L], { latitude, longitude })?.id).toBe(zone);
  });
  it('holds a zone across the antimeridian as the small shape it is', () => {
    const corners = [[-16.9, 179.9], [-16.9, -179.9], [-17.1, -179.9], [-17.1, 179.9]] as const;
    const fiji = { ...L, id: 'F', geoCodes: corners.map(([latitude, longitude], i) => ({ sequence: i + 1, latitude, longitude })) };
    for (const [longitude, inside] of [[179.99, true], [-179.95, true], [180, true], [-180, true], [179.8, false], [-179.8, false], [0, false]] as const)
      expect([longitude, zoneOf([fiji], { latitude: -17, longitude })?.id]).toEqual([longitude, inside ? 'F' : undefined]);
  }); // prettier-ignore

  it('takes the corners in sequence order, and the first zone that holds the point', () => {
    const other = { ...L, id: 'M' };
    expect(zoneOf([other, L], { latitude: 1.5, longitude: 1.5 })?.id).toBe('M');
  });

  it('lets a zone that does not deliver win over the zones it overlaps, whatever their order', () => {
    const no = { ...L, id: 'No', delivery: false };
    expect(zoneOf([L, no], { latitude: 1.5, longitude: 1.5 })?.id).toBe('No');
    expect(zoneOf([no, L], { latitude: 1.5, longitude: 1.5 })?.id).toBe('No');
  });
});

describe('GET /Stores/{id}/DeliveryMetrics, built-in address file', () => {
  const suite = hostedSuite();

  it('places an address in its zone, with distances in the unit asked and the fee in cents', async () => {
    const res = await suite.world.hosted('GET', query(['350', 'W 24th St']));
    expect(res.status, res.text).toBe(200);
    const miles = greatCircleMiles(STORE, { latitude: 40.7465, longitude: -73.9988 });
    expect(res.body.data).toEqual({ zoneName: 'Chelsea', deliverable: true, distance: Math.round(miles * 100) / 100, drivingDistance: null, distanceUOM: 'mi', deliveryFee: 150, latitude: 40.7465, longitude: -73.9988 });
    const km = await suite.world.hosted('GET', query(['350', 'W 24th St'], '&distanceUOM=km'));
    expect(km.body.data.distance).toBe(Math.round(miles * 1.609344 * 100) / 100);
    expect(km.body.data.distanceUOM).toBe('km');
  }); // prettier-ignore

  it('is not deliverable in the notch of a concave zone, and says why there is no driving distance', async () => {
    // true and false in any case, as .NET's bool binding reads them (True is what it writes).
    for (const flag of ['true', 'True', 'TRUE']) {
      const res = await suite.world.hosted('GET', query(['201', 'W 17th St'], `&includeDrivingDistance=${flag}`));
      expect(res.body.data).toMatchObject({ zoneName: null, deliverable: false, deliveryFee: 0, drivingDistance: null });
      expect([flag, res.body.messagesDetails]).toEqual([flag, [{ id: 'drivingDistance', message: expect.stringContaining('ROUTE_URL'), messageType: 'WARNING' }]]);
    }
    expect((await suite.world.hosted('GET', query(['201', 'W 17th St'], '&includeDrivingDistance=False'))).body.messagesDetails).toEqual([]);
    const yes = await suite.world.hosted('GET', query(['201', 'W 17th St'], '&includeDrivingDistance=yes'));
    expect([yes.status, yes.body.messagesDetails[1]]).toEqual([400, { id: 'querystring.includeDrivingDistance', message: 'must be true or false', messageType: 'ERROR' }]);
  }); // prettier-ignore

  it('refuses an address it cannot place, and bad parameters', async () => {
    const res = await suite.world.hosted('GET', query(['1', 'Nowhere Ln']));
    expect([res.status, res.body.messagesDetails[0].id]).toEqual([422, 'address_not_found']);
    expect(
      (await suite.world.hosted('GET', query(['350', 'W 24th St'], '&distanceUOM=furlong'))).status,
    ).toBe(400);
    expect(
      (await suite.world.hosted('GET', `/Stores/${DEMO_STORE_ID}/DeliveryMetrics?streetNumber=1`)).status,
    ).toBe(400);
  });

  it('says what each address part takes, with an example, never "send a string"', async () => {
    const said = async (q: string) => (await suite.world.hosted('GET', `/Stores/${DEMO_STORE_ID}/DeliveryMetrics?${q}`)).body.messagesDetails.slice(1).map((m: { id: string; message: string }) => `${m.id}: ${m.message}`);
    expect(await said('')).toEqual([
      'querystring.streetNumber: is required but missing; send the street number, such as 350.',
      'querystring.streetName: is required but missing; send the street name, such as W 24th St.',
      'querystring.city: is required but missing; send the city, such as New York.',
      "querystring.state: is required but missing; send the state's 2-letter code, such as NY.",
      'querystring.postalCode: is required but missing; send the postal code, such as 10011.',
    ]);
    expect(await said('streetNumber=350&streetNumber=352&streetName=&city=New%20York&state=New%20York&postalCode=10011')).toEqual([
      'querystring.streetNumber: must be the street number, such as 350, sent once.',
      'querystring.streetName: must be the street name, such as W 24th St (1 to 40 characters)',
      "querystring.state: must be the state's 2-letter code, such as NY (2 characters)",
    ]);
  }); // prettier-ignore
});

describe('GET /Stores/{id}/DeliveryMetrics, zones that do not deliver', () => {
  const suite = hostedSuite();
  const STORE_ID = 3110;
  const UNPLACED = 3111;
  const box = (id: string, delivery: boolean, additionalFee: number, [south, west, north, east]: number[]) => ({
    id, delivery, additionalFee, driverCompensation: 2,
    geoCodes: [[south, west], [north, west], [north, east], [south, east]].map(([latitude, longitude], i) => ({ sequence: i + 1, latitude: latitude!, longitude: longitude! })),
  }); // prettier-ignore
  beforeAll(async () => {
    // West delivers; Pier, inside West and listed after it, does not; Midtown, on its own, does not.
    const geoFences = [
      box('West', true, 2.25, [40.744, -74.01, 40.749, -73.997]),
      box('Pier', false, 4, [40.745, -74.01, 40.748, -74.003]),
      box('Midtown', false, 3, [40.747, -73.99, 40.75, -73.98]),
    ];
    const { db } = suite.platform.app.ctx;
    await importCompany(db, suite.platform.config.encryptionKey, {
      company: { id: 310, name: 'Zones Co.' },
      stores: [
        { id: STORE_ID, name: 'Zones', timeZone: 'Eastern Standard Time', ...STORE, geoFences },
        { id: UNPLACED, name: 'No position', timeZone: 'Eastern Standard Time', geoFences },
      ],
    });
    await grantCompany(db, 310, suite.world.partner.partner_id);
  });

  /** The answer's bytes, for an address of the built-in file. */
  const answer = async (street: [string, string], postalCode = '10011') => {
    const path = query(street).replace(`/Stores/${DEMO_STORE_ID}/`, `/Stores/${STORE_ID}/`).replace('10011', postalCode);
    const res = await suite.world.hosted('GET', path, { store: STORE_ID });
    expect(res.status, res.text).toBe(200);
    return res.text;
  }; // prettier-ignore
  const bytes = (at: { latitude: number; longitude: number }, zoneName: string | null, deliverable: boolean, deliveryFee: number, message: string) => {
    const distance = Math.round(greatCircleMiles(STORE, at) * 100) / 100;
    const data = { zoneName, deliverable, distance, drivingDistance: null, distanceUOM: 'mi', deliveryFee, ...at };
    return JSON.stringify({ data, message: message.replace('{d}', String(distance)), messagesDetails: [] });
  }; // prettier-ignore

  it('quotes the fee in cents inside a zone that delivers', async () => {
    expect(await answer(['350', 'W 24th St'])).toBe(bytes({ latitude: 40.7465, longitude: -73.9988 }, 'West', true, 225, 'Deliverable: zone West, {d} mi.'));
  }); // prettier-ignore

  it('inside a zone that does not deliver: not deliverable and no fee, the zone named', async () => {
    expect(await answer(['20', 'W 34th St'], '10001')).toBe(bytes({ latitude: 40.7484, longitude: -73.9857 }, 'Midtown', false, 0, 'Not deliverable: zone Midtown, where the store does not deliver, {d} mi.'));
  }); // prettier-ignore

  it('where zones overlap, the one that does not deliver wins, though listed after the one that does', async () => {
    expect(await answer(['100', '11th Ave'])).toBe(bytes({ latitude: 40.7461, longitude: -74.0068 }, 'Pier', false, 0, 'Not deliverable: zone Pier, where the store does not deliver, {d} mi.'));
  }); // prettier-ignore

  it('refuses a store with no position with 422 store_not_located, not a 404 that says the store is not there', async () => {
    const res = await suite.world.hosted('GET', query(['350', 'W 24th St']).replace(`/Stores/${DEMO_STORE_ID}/`, `/Stores/${UNPLACED}/`), { store: UNPLACED });
    expect([res.status, res.body.data, res.body.messagesDetails[0]]).toEqual([422, null, { id: 'store_not_located', message: `Store ${UNPLACED} has no latitude and longitude, so no distance or zone can be measured from it; the operator must add them to the company file.`, messageType: 'ERROR' }]);
    expect((await suite.world.hosted('GET', `/Stores/${UNPLACED}`)).status).toBe(200);
  }); // prettier-ignore

  it('outside every zone: not deliverable, no zone, no fee', async () => {
    expect(await answer(['201', 'W 17th St'])).toBe(bytes({ latitude: 40.7405, longitude: -73.9955 }, null, false, 0, 'Not deliverable: outside every zone, {d} mi.'));
  }); // prettier-ignore
});

describe('GET /Stores/{id}/DeliveryMetrics, with a geocoder and a route service', () => {
  let platform: TestPlatform;
  let world: HostedWorld;
  let stub: Server;
  const seen: string[] = [];
  let geocoderAnswer: { status: number; body: unknown } = { status: 200, body: [] };
  let routeAnswer: { status: number; body: unknown } = { status: 200, body: {} };

  beforeAll(async () => {
    // Speaks Nominatim's and OSRM's JSON, as the real services do.
    stub = createServer((req, res) => {
      seen.push(req.url!);
      const answer = req.url!.startsWith('/nominatim/search') ? geocoderAnswer : routeAnswer;
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    platform = await startTestPlatform({
      geo: { geocoderUrl: `${base}/nominatim`, routeUrl: `${base}/osrm` },
    });
    world = await hostedWorld(platform);
  });
  afterAll(async () => {
    await platform?.stop();
    await new Promise((resolve) => stub?.close(resolve));
  });

  it('asks the geocoder with the structured address, and the route service for the road distance', async () => {
    geocoderAnswer = { status: 200, body: [{ place_id: 1, lat: '40.7461', lon: '-74.0068', display_name: '100 11th Ave' }] };
    routeAnswer = { status: 200, body: { code: 'Ok', routes: [{ distance: 1609.344, duration: 300 }], waypoints: [] } };
    seen.length = 0;
    const res = await world.hosted('GET', query(['100', '11th Ave'], '&includeDrivingDistance=true'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ zoneName: 'Chelsea', deliverable: true, drivingDistance: 1, latitude: 40.7461, longitude: -74.0068 });
    const geocoderCall = new URL(seen[0]!, 'http://x');
    expect(Object.fromEntries(geocoderCall.searchParams)).toEqual({ street: '100 11th Ave', city: 'New York', state: 'NY', postalcode: '10011', format: 'jsonv2', limit: '1' });
    expect(seen[1]).toBe('/osrm/route/v1/driving/-73.9967,40.7446;-74.0068,40.7461?overview=false');
    const km = await world.hosted('GET', query(['100', '11th Ave'], '&includeDrivingDistance=true&distanceUOM=km'));
    expect(km.body.data.drivingDistance).toBe(1.61);
  }); // prettier-ignore

  it('warns when the route service has no route, and answers 422 or 503 for a geocoder that cannot help', async () => {
    routeAnswer = { status: 400, body: { code: 'NoRoute', message: 'Impossible route between points' } };
    const noRoute = await world.hosted('GET', query(['100', '11th Ave'], '&includeDrivingDistance=true'));
    expect(noRoute.body.data.drivingDistance).toBeNull();
    expect(noRoute.body.messagesDetails[0]).toMatchObject({ id: 'drivingDistance', messageType: 'WARNING' });
    // A route without a usable distance (null, text, negative) is no route, not a road of 0 miles.
    for (const distance of [null, '', '12', -5]) {
      routeAnswer = { status: 200, body: { code: 'Ok', routes: [{ distance, duration: 300 }], waypoints: [] } };
      const odd = await world.hosted('GET', query(['100', '11th Ave'], '&includeDrivingDistance=true'));
      expect([distance, odd.status, odd.body.data.drivingDistance, odd.body.messagesDetails[0]?.id]).toEqual([distance, 200, null, 'drivingDistance']);
    }
    geocoderAnswer = { status: 200, body: [] };
    expect((await world.hosted('GET', query(['9', 'Nowhere']))).body.messagesDetails[0].id).toBe('address_not_found');
    // A geocoder that answers but not usefully is the geocoder's fault (503), not the address's (422).
    // An empty, null or boolean coordinate is no coordinate (Number() would read it as 0: a place off Africa).
    for (const body of [{ error: 'down' }, { lat: '40.7', lon: '-74' }, [{ lat: '200', lon: '500' }], [{ lat: 'x', lon: '1' }], [{}], [{ lat: '', lon: '' }], [{ lat: null, lon: null }], [{ lat: ' ', lon: '-74' }], [{ lat: true, lon: false }], [{ lat: ['40.7'], lon: '-74' }]]) {
      geocoderAnswer = { status: body && 'error' in body ? 500 : 200, body };
      const down = await world.hosted('GET', query(['100', '11th Ave']));
      expect([JSON.stringify(body), down.status, down.body.messagesDetails[0].id]).toEqual([JSON.stringify(body), 503, 'geo_service_unavailable']);
    }
  }); // prettier-ignore
});
