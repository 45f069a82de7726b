import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_COMPANY, DEMO_COMPANY_ID, DEMO_STORE_ID } from '@stream/contracts/apis/hr-menu/demo';
import { searchStores } from '@stream/contracts/apis/hr-stores/index';
import { HostedErrorBody } from '@stream/contracts/envelopes';
import { startTestPlatform, type TestPlatform } from '../../../test/platform.ts';
import { grantCompany, importCompany } from '../companies.ts';
import { hostedWorld, type HostedWorld } from '../testing.ts';
import { greatCircleMiles } from './geo.ts';
import { requestAccessToken, testPartner } from '../../auth/testing.ts';
import { call } from '../../../test/http.ts';
import { apiClients, stores } from '../../db/schema/index.ts';
import { eq } from 'drizzle-orm';

let platform: TestPlatform;
let world: HostedWorld;
/** A degree of latitude, in miles. */
const DEGREE = (2 * Math.PI * 3958.7613) / 360;

const store = (id: number, latitude: number, longitude: number) => ({
  id,
  name: `Store ${id}`,
  timeZone: 'Pacific Standard Time' as const,
  latitude,
  longitude,
});

beforeAll(async () => {
  platform = await startTestPlatform();
  world = await hostedWorld(platform);
  // Company 300: stores on a meridian at known distances, both sides of the antimeridian, near a pole.
  await importCompany(platform.app.ctx.db, platform.config.encryptionKey, {
    company: { id: 300, name: 'Geo Co' },
    stores: [
      store(3001, 10, 20), // the centre
      store(3002, 10.05, 20), // 0.05° north: 3.45 mi
      store(3003, 10.1, 20), // 6.91 mi
      store(3004, 9.9, 20), // 6.91 mi south
      store(3005, 0, 179.98), // antimeridian, east side
      store(3006, 0, -179.97), // antimeridian, west side: 0.05° from 3005
      store(3007, 89.95, 0), // near the pole
      store(3008, 89.95, 180), // across the pole: 0.1° from 3007
    ],
  });
  await grantCompany(platform.app.ctx.db, 300, world.partner.partner_id);
  await importCompany(platform.app.ctx.db, platform.config.encryptionKey, {
    company: { id: 301, name: 'Hidden Co' },
    stores: [store(3101, 10, 20)],
  });
});
afterAll(() => platform?.stop());

const search = (q: string, company: number | string = 300) =>
  world.hosted('GET', `/Stores?${q}`, { headers: { 'x-company': String(company) } });
const ids = async (q: string) => ((await search(q)).body.data as { id: number }[]).map((s) => s.id);

describe('GET /Stores (radius search)', () => {
  it('finds the stores within the radius, nearest first, with their distance', async () => {
    const res = await search('Latitude=10&Longitude=20&Radius=5');
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: { id: number; distance: number }) => [s.id, s.distance])).toEqual([
      [3001, 0],
      [3002, +(DEGREE * 0.05).toFixed(2)],
    ]);
    expect(res.body.data[0]).toMatchObject({ companyId: 300, companyName: 'Geo Co', name: 'Store 3001', timeZone: 'Pacific Standard Time' });
    expect(await ids('Latitude=10&Longitude=20&Radius=7')).toEqual([3001, 3002, 3003, 3004]);
    expect(await ids('Latitude=10&Longitude=20&Radius=6.9')).toEqual([3001, 3002]); // 6.91 is just out
    expect((await search('Latitude=10&Longitude=20&Radius=1')).body.message).toBe('1 store within 1 mile.'); // was "1 miles"
    expect(await ids('Latitude=10.04&Longitude=20')).toEqual([3002, 3001, 3003]); // default 5 miles
    // A store exactly on the radius is in it; a hair less and it is out.
    const edge = greatCircleMiles({ latitude: 10, longitude: 20 }, { latitude: 10.05, longitude: 20 });
    expect(await ids(`Latitude=10&Longitude=20&Radius=${edge}`)).toEqual([3001, 3002]);
    expect(await ids(`Latitude=10&Longitude=20&Radius=${edge - 1e-9}`)).toEqual([3001]);
  }); // prettier-ignore

  it("answers the reference's example request with the reference's example answer", async () => {
    const { example } = searchStores.request;
    const res = await world.hosted('GET', `/Stores?Latitude=${example.Latitude}&Longitude=${example.Longitude}&Radius=${example.Radius}`, { headers: { 'x-company': example['x-company'] } });
    expect(res.body).toEqual(searchStores.responses[200].example);
  }); // prettier-ignore

  it('reaches across the antimeridian and over a pole', async () => {
    expect(await ids('Latitude=0&Longitude=179.99&Radius=5')).toEqual([3005, 3006]);
    expect(await ids('Latitude=0&Longitude=-179.99&Radius=3')).toEqual([3006, 3005]);
    expect(await ids('Latitude=0&Longitude=-179.99&Radius=2')).toEqual([3006]); // 3005 is 2.07 miles away
    expect(await ids('Latitude=90&Longitude=0&Radius=5')).toEqual([3007, 3008]);
    expect(await ids('Latitude=89.95&Longitude=0&Radius=7')).toEqual([3007, 3008]);
  });

  it('checks coordinates and radius, and keeps companies to those granted', async () => {
    for (const q of ['Latitude=90.01&Longitude=0', 'Latitude=-91&Longitude=0', 'Latitude=0&Longitude=180.5', 'Latitude=0&Longitude=-181', 'Latitude=x&Longitude=0', 'Longitude=0', 'Latitude=0&Longitude=0&Radius=0', 'Latitude=0&Longitude=0&Radius=501', 'Latitude=&Longitude=', 'Latitude=0x10&Longitude=0', 'Latitude=1e1&Longitude=0', 'Latitude=%2010&Longitude=0', 'Latitude=0&Longitude=0&Radius=']) {
      const res = await search(q);
      expect([q, res.status, res.body.messagesDetails[0].id]).toEqual([q, 400, 'validation_failed']);
    }
    expect((await search('Latitude=90&Longitude=180')).status).toBe(200);
    expect((await search('Latitude=%2B10.&Longitude=-.5&Radius=5.')).status).toBe(200);
    expect((await search('Latitude=-90&Longitude=-180')).status).toBe(200);
    for (const company of [301, 999]) {
      const res = await search('Latitude=10&Longitude=20', company);
      expect(res.status).toBe(404);
      expect(HostedErrorBody.parse(res.body).messagesDetails[0]!.id).toBe('not_found');
    }
    const noCompany = await world.hosted('GET', '/Stores?Latitude=10&Longitude=20');
    expect(noCompany.body.messagesDetails.map((m: { id: string }) => m.id)).toContain('headers.x-company');
    expect(JSON.stringify(noCompany.body.messagesDetails)).toContain('the company id, a whole number such as 100');
  }); // prettier-ignore
  it('says what each coordinate takes: a number, with an example that fits the parameter, never "send a string"', async () => {
    const said = async (q: string) => (await search(q)).body.messagesDetails.slice(1).map((m: { id: string; message: string }) => `${m.id}: ${m.message}`);
    expect(await said('Radius=5')).toEqual([
      'querystring.Latitude: is required but missing; send a number such as 40.7484.',
      'querystring.Longitude: is required but missing; send a number such as -73.9857.',
    ]);
    expect(await said('Latitude=x&Longitude=0x1&Radius=five')).toEqual([
      'querystring.Latitude: must be a decimal number such as 40.7484',
      'querystring.Longitude: must be a decimal number such as -73.9857',
      'querystring.Radius: must be a decimal number such as 2.5',
    ]);
    // A parameter sent twice under its own name is a list, not a number.
    expect(await said('Latitude=10&Latitude=11&Longitude=20')).toEqual(['querystring.Latitude: must be a number such as 40.7484, sent once.']);
  }); // prettier-ignore
});

describe('query parameters', () => {
  it('are read by their names in any case, not dropped for their defaults; one the call does not take is named in a WARNING', async () => {
    const S = `/Stores/${DEMO_STORE_ID}`;
    // Radius 2 reaches 3001 only (3002 is 3.45 miles away, inside the default 5).
    for (const q of ['latitude=10&longitude=20&radius=2', 'LATITUDE=10&LONGITUDE=20&RADIUS=2']) {
      const res = await search(q);
      expect([q, res.status, res.body.data?.map((s: { id: number }) => s.id), res.body.messagesDetails]).toEqual([q, 200, [3001], []]);
    }
    const twice = await search('Latitude=10&Longitude=20&Radius=2&radius=7');
    expect(twice.body.data.map((s: { id: number }) => s.id)).toEqual([3001]);
    expect(twice.body.messagesDetails).toEqual([{ id: 'querystring.radius', message: 'radius was ignored: Radius is also given.', messageType: 'WARNING' }]);
    const typo = await search('Latitude=10&Longitude=20&Radiuss=2');
    expect(typo.body.data.map((s: { id: number }) => s.id)).toEqual([3001, 3002]);
    expect(typo.body.messagesDetails).toEqual([{ id: 'querystring.Radiuss', message: 'Radiuss is not a parameter of this call; it was ignored. It takes Latitude, Longitude, Radius.', messageType: 'WARNING' }]);
    const types = await world.hosted('GET', `${S}/OrderTypes?servicetype=GrubHub`);
    expect(types.body.data.map((t: { id: string }) => t.id)).toEqual(['Pickup']);
    const at = await world.hosted('GET', `${S}/OrderTypes/Pickup/EstimatedTime?desiredduetime=${encodeURIComponent('2030-12-03T18:30:00-05:00')}`);
    expect(at.body.data.desiredDueTime).toBe('2030-12-03T23:30:00.000Z');
    const km = await world.hosted('GET', `${S}/DeliveryMetrics?streetnumber=350&streetname=W%2024th%20St&City=New%20York&STATE=NY&postalcode=10011&distanceuom=km`);
    expect([km.status, km.body.data?.distanceUOM, km.body.data?.distance]).toEqual([200, 'km', 0.28]);
    const none = await world.hosted('GET', `${S}?verbose=1`);
    expect([none.status, none.body.messagesDetails]).toEqual([200, [{ id: 'querystring.verbose', message: 'verbose is not a parameter of this call; it was ignored. It takes none.', messageType: 'WARNING' }]]);
    const nameless = await world.hosted('GET', `${S}?=1`);
    expect([nameless.status, nameless.body.messagesDetails]).toEqual([200, [{ id: 'querystring', message: 'A parameter without a name (`?=…`) was ignored. It takes none.', messageType: 'WARNING' }]]);
  }); // prettier-ignore

  it('take a value of a closed list (distanceUOM, serviceType, includeStageTimes) in any case, answered in the list\'s spelling', async () => {
    const S = `/Stores/${DEMO_STORE_ID}`;
    const address = 'streetNumber=350&streetName=W%2024th%20St&city=New%20York&state=NY&postalCode=10011';
    for (const unit of ['KM', 'Km', 'km']) {
      const res = await world.hosted('GET', `${S}/DeliveryMetrics?${address}&distanceUOM=${unit}`);
      expect([unit, res.status, res.body.data?.distanceUOM, res.body.data?.distance, res.body.messagesDetails]).toEqual([unit, 200, 'km', 0.28, []]);
    }
    const types = await world.hosted('GET', `${S}/OrderTypes?serviceType=grubhub`);
    expect([types.status, types.body.data?.map((t: { id: string }) => t.id)]).toEqual([200, ['Pickup']]);
    const menus = await world.hosted('GET', '/Menus?SERVICETYPE=DOORDASH');
    expect([menus.status, menus.body.data?.length]).toEqual([200, (await world.hosted('GET', '/Menus?serviceType=DoorDash')).body.data.length]);
    const orders = await world.hosted('GET', '/Orders?includeStageTimes=TRUE&serviceType=doordash');
    expect([orders.status, orders.body.messagesDetails]).toEqual([200, []]);
    // A value outside the list is still 400, naming the values it takes.
    const furlong = await world.hosted('GET', `${S}/DeliveryMetrics?${address}&distanceUOM=furlong`);
    expect([furlong.status, furlong.body.messagesDetails[1]]).toEqual([400, { id: 'querystring.distanceUOM', message: expect.stringMatching(/mi.*km/), messageType: 'ERROR' }]);
  }); // prettier-ignore
});

describe('a store', () => {
  it('answers the store, its service types and its system message', async () => {
    const res = await world.hosted('GET', `/Stores/${DEMO_STORE_ID}`);
    expect(res.body.data).toMatchObject({ id: DEMO_STORE_ID, companyId: DEMO_COMPANY_ID, companyName: 'Stream Pizza Co.', timeZone: 'Eastern Standard Time' });
    expect((await world.hosted('GET', '/Stores/3101')).status).toBe(404);
    const types = await world.hosted('GET', '/Stores/3001/ServiceTypes');
    expect(types.body.data).toEqual([]); // no menus
    expect((await world.hosted('GET', `/Stores/${DEMO_STORE_ID}/ServiceTypes`)).body.data).toHaveLength(8); // a None menu
  }); // prettier-ignore

  it("answers every primaryContact field the company file gives; the file may give only the spec's fields", async () => {
    const contact = { id: 'c-1', firstName: 'Dana', lastName: 'Reyes', phoneNumber: '+12125550199', email: 'dana@pizza.example' };
    const file = (primaryContact: Record<string, string>) => ({ company: { id: 300, name: 'Geo Co' }, stores: [{ ...store(3001, 10, 20), primaryContact }] });
    await importCompany(platform.app.ctx.db, platform.config.encryptionKey, file(contact));
    expect((await world.hosted('GET', '/Stores/3001')).body.data.primaryContact).toEqual(contact);
    // A key the Store API has no field for would be stored and never shown: the import refuses it.
    const phone = importCompany(platform.app.ctx.db, platform.config.encryptionKey, file({ firstName: 'Dana', phone: '+12125550199' }));
    await expect(phone).rejects.toMatchObject({ code: 'validation_failed', details: [{ path: 'stores[0].primaryContact', message: expect.stringContaining('phone') }] });
    expect((await world.hosted('GET', '/Stores/3001')).body.data.primaryContact).toEqual(contact);
  }); // prettier-ignore

  it('changes only the system message, at most 25 characters, and nothing on a refusal', async () => {
    const path = `/Stores/${DEMO_STORE_ID}/SystemConfiguration`;
    expect((await world.hosted('GET', path)).body.data).toEqual({ message: null });
    const set = await world.hosted('PATCH', path, { body: { data: { message: 'm'.repeat(25) } } });
    expect([set.status, set.body.data]).toEqual([200, { message: 'm'.repeat(25) }]);
    for (const body of [{ data: { message: 'm'.repeat(26) } }, { data: { message: 'ok', theme: 'dark' } }, { data: { name: 'x' } }, { data: {} }, { message: 'ok' }]) {
      const res = await world.hosted('PATCH', path, { body });
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    expect((await world.hosted('GET', path)).body.data).toEqual({ message: 'm'.repeat(25) });
    expect((await world.hosted('PATCH', path, { body: { data: { message: null } } })).body.data).toEqual({ message: null });
    expect((await world.hosted('PATCH', '/Stores/3101/SystemConfiguration', { body: { data: { message: 'x' } } })).status).toBe(404);
  }); // prettier-ignore

  it('reads body field names in any case, as the Menu and Order APIs do, and still refuses one it does not have', async () => {
    const path = `/Stores/${DEMO_STORE_ID}/SystemConfiguration`;
    const set = await world.hosted('PATCH', path, { body: { Data: { Message: 'Back at 6' } } });
    expect([set.status, set.body.data, set.body.messagesDetails]).toEqual([200, { message: 'Back at 6' }, []]);
    const unknown = await world.hosted('PATCH', path, { body: { Data: { Message: 'x', Theme: 'dark' } } });
    expect([unknown.status, unknown.body.messagesDetails[0].id, unknown.body.messagesDetails[0].message]).toEqual([400, 'validation_failed', expect.stringContaining('Theme')]);
    expect((await world.hosted('GET', path)).body.data).toEqual({ message: 'Back at 6' });
    await world.hosted('PATCH', path, { body: { data: { message: null } } });
  }); // prettier-ignore
});

describe('zones, credentials and order types', () => {
  it('lists the zones with their fees in dollars', async () => {
    const res = await world.hosted('GET', `/Stores/${DEMO_STORE_ID}/GeoFences`);
    expect(res.body.data).toEqual([expect.objectContaining({ id: 'Chelsea', delivery: true, additionalFee: 1.5, driverCompensation: 3 })]);
    expect(res.body.data[0].geoCodes).toHaveLength(6);
    expect((await world.hosted('GET', '/Stores/3101/GeoFences')).status).toBe(404);
  }); // prettier-ignore

  it('keeps gateway tokens encrypted at rest and shows them to a granted partner only', async () => {
    const [row] = await platform.app.ctx.db.select({ c: stores.gatewayCredentials }).from(stores).where(eq(stores.id, DEMO_STORE_ID));
    expect(JSON.stringify(row!.c)).not.toContain('tok_demo_chelsea_4f1c');
    const res = await world.hosted('GET', `/Stores/${DEMO_STORE_ID}/GatewayCredentials`);
    expect(res.body.data).toEqual([{ id: 'primary', accountToken: 'tok_demo_chelsea_4f1c', acceptorId: '3928907', terminalId: '0001' }]);
    // A partner granted no company has no hosted scope; one granted another company sees no such store.
    const stranger = await testPartner(platform);
    const denied = await world.hosted('GET', `/Stores/${DEMO_STORE_ID}/GatewayCredentials`, { token: stranger.token });
    expect([denied.status, denied.text.includes('tok_')]).toEqual([403, false]);
    await grantCompany(platform.app.ctx.db, 301, stranger.partner_id);
    const other = (await requestAccessToken(platform.url, stranger)).access_token;
    const hidden = await world.hosted('GET', `/Stores/${DEMO_STORE_ID}/GatewayCredentials`, { token: other });
    expect([hidden.status, hidden.text.includes('tok_')]).toEqual([404, false]);
    // A partner token (one organisation) reaches no hosted API, even with a scope it got before that was refused.
    const org = await world.partner.org();
    const refused = await call('POST', `${platform.url}/tokens`, { token: world.partner.token, body: { org_id: org, token_name: 'contractor', scopes: ['user', 'stores'] } });
    expect([refused.status, refused.body.error.code, refused.body.error.details[0].path]).toEqual([400, 'validation_failed', 'body.scopes[1]']);
    const { id, secret } = await world.partner.orgToken(org, ['user'], 'legacy');
    await platform.app.ctx.db.update(apiClients).set({ scopes: ['user', 'stores'] }).where(eq(apiClients.id, id));
    const legacy = (await requestAccessToken(platform.url, { client_id: id, client_secret: secret })).access_token;
    const blocked = await world.hosted('GET', `/Stores/${DEMO_STORE_ID}/GatewayCredentials`, { token: legacy });
    expect([blocked.status, blocked.body.messagesDetails[0].id, blocked.text.includes('tok_')]).toEqual([403, 'insufficient_scope', false]);
  }); // prettier-ignore

  it('lists order types by service type and patches only the estimated time fields', async () => {
    const list = async (q = '') => ((await world.hosted('GET', `/Stores/${DEMO_STORE_ID}/OrderTypes${q}`)).body.data as { id: string }[]).map((t) => t.id);
    expect(await list()).toEqual(['Pickup', 'Delivery']);
    expect(await list('?serviceType=GrubHub')).toEqual(['Pickup']);
    expect(await list('?serviceType=DoorDash')).toEqual(['Pickup', 'Delivery']);
    const path = `/Stores/${DEMO_STORE_ID}/OrderTypes/Delivery`;
    expect((await world.hosted('GET', path)).body.data).toMatchObject({ id: 'Delivery', estimatedTime: 45 });
    const set = { estimatedTime: 60, estimatedTimeManager: 'Dana', estimatedTimeManagerDate: '2026-12-01T17:05:00-05:00' };
    const patched = await world.hosted('PATCH', path, { body: { data: set } });
    expect([patched.status, patched.body.data]).toEqual([200, expect.objectContaining({ id: 'Delivery', orderTypeCategory: 'Delivery', ...set })]);
    for (const data of [{ estimatedTime: 61, orderTypeCategory: 'Pickup' }, { id: 'Other' }, { estimatedTime: -1 }, { estimatedTime: 1441 }, { estimatedTime: 1.5 }, { paymentTypes: [] }]) {
      const res = await world.hosted('PATCH', path, { body: { data } });
      expect([JSON.stringify(data), res.status]).toEqual([JSON.stringify(data), 400]);
    }
    // A huge number is told the range, not "must be at most 9007199254740991" (the safe-integer bound led).
    for (const [estimatedTime, said] of [[1e308, 'must be at most 1440 minutes'], [1e16, 'must be at most 1440 minutes'], [-1e16, 'must be 0 or more minutes'], [1.5, 'must be a whole number of minutes']] as const) {
      const res = await world.hosted('PATCH', path, { body: { data: { estimatedTime } } });
      expect([estimatedTime, res.status, res.body.message, res.body.messagesDetails.length]).toEqual([estimatedTime, 400, `body.data.estimatedTime: ${said}`, 2]);
    }
    // A patch setting nothing was answered 200 "Order type Delivery changed."
    const empty = await world.hosted('PATCH', path, { body: { data: {} } });
    expect([empty.status, empty.body.messagesDetails.slice(1)]).toEqual([400, [{ id: 'body.data', message: 'must set at least one of estimatedTime, estimatedTimeManager, estimatedTimeManagerDate', messageType: 'ERROR' }]]);
    // A field it does not take is named alone, not also as "nothing set".
    const other = await world.hosted('PATCH', path, { body: { data: { estimatedMinutes: 5 } } });
    expect([other.status, other.body.messagesDetails.length, other.body.messagesDetails[1].message]).toEqual([400, 2, expect.stringContaining('estimatedMinutes')]);
    // A date without its time is refused with a sentence saying what to send (was zod's "Invalid ISO datetime").
    const day = await world.hosted('PATCH', path, { body: { data: { estimatedTimeManagerDate: '2026-12-01' } } });
    expect([day.status, day.body.messagesDetails[1]]).toEqual([400, { id: 'body.data.estimatedTimeManagerDate', message: 'must be a date-time with its offset, such as 2026-12-01T19:05:00-05:00', messageType: 'ERROR' }]);
    expect((await world.hosted('GET', path)).body.data).toMatchObject(set);
    // The store's live estimate survives the operator importing the company file again.
    await importCompany(platform.app.ctx.db, platform.config.encryptionKey, DEMO_COMPANY);
    expect((await world.hosted('GET', path)).body.data).toMatchObject({ ...set, serviceTypes: ['DoorDash', 'UberEats'] });
    expect((await world.hosted('GET', `/Stores/${DEMO_STORE_ID}/OrderTypes/Drone`)).status).toBe(404);
    expect((await world.hosted('PATCH', `/Stores/${DEMO_STORE_ID}/OrderTypes/Drone`, { body: { data: { estimatedTime: 5 } } })).status).toBe(404);
  }); // prettier-ignore

  it('finds an order type named in the path in any case (pickup is Pickup), answered by its own id', async () => {
    const S = `/Stores/${DEMO_STORE_ID}/OrderTypes`;
    const got = await world.hosted('GET', `${S}/delivery`);
    expect([got.status, got.body.data?.id, got.body.message]).toEqual([200, 'Delivery', 'Order type Delivery.']);
    const patched = await world.hosted('PATCH', `${S}/DELIVERY`, { body: { data: { estimatedTime: 50 } } });
    expect([patched.status, patched.body.data?.id, patched.body.data?.estimatedTime]).toEqual([200, 'Delivery', 50]);
    // The patch changed the one order type, not a second one spelled DELIVERY.
    expect((await world.hosted('GET', S)).body.data.map((t: { id: string; estimatedTime: number }) => [t.id, t.estimatedTime])).toEqual([['Pickup', 20], ['Delivery', 50]]);
    const at = await world.hosted('GET', `${S}/PICKUP/EstimatedTime?desiredDueTime=${encodeURIComponent('2030-12-03T18:30:00-05:00')}`);
    expect([at.status, at.body.data?.orderType]).toEqual([200, 'Pickup']);
    const none = await world.hosted('GET', `${S}/Drone`);
    expect([none.status, none.body.message]).toEqual([404, `Store ${DEMO_STORE_ID} has no order type Drone; it has Pickup, Delivery (GET /Stores/${DEMO_STORE_ID}/OrderTypes).`]);
  }); // prettier-ignore

  it('estimates when an order would be ready, in the store’s hours', async () => {
    const path = `/Stores/${DEMO_STORE_ID}/OrderTypes/Pickup/EstimatedTime`;
    const open = await world.hosted('GET', `${path}?desiredDueTime=${encodeURIComponent('2030-12-03T18:30:00-05:00')}`);
    expect(open.body.data).toEqual({ orderType: 'Pickup', desiredDueTime: '2030-12-03T23:30:00.000Z', estimatedTime: '2030-12-03T23:30:00.000Z', estimatedMinutes: 20, timeZone: 'Eastern Standard Time', adjusted: false });
    const night = await world.hosted('GET', `${path}?desiredDueTime=${encodeURIComponent('2030-12-03T23:30:00-05:00')}`);
    expect(night.body.data).toMatchObject({ estimatedTime: '2030-12-04T15:20:00.000Z', adjusted: true }); // 10:00 + 20 min
    const asap = await world.hosted('GET', `/Stores/${DEMO_STORE_ID}/OrderTypes/Delivery/EstimatedTime`);
    expect(Date.parse(asap.body.data.estimatedTime)).toBeGreaterThanOrEqual(Date.now() + 44 * 60_000);
    expect((await world.hosted('GET', `/Stores/${DEMO_STORE_ID}/OrderTypes/Drone/EstimatedTime`)).status).toBe(404);
    // As an order's deferDue: with its offset (a wall clock alone names no instant), 2000 to 2099.
    for (const [sent, why] of [['tomorrow', 'with its offset'], ['2030-12-03T18:30:00', 'with its offset'], ['2100-01-01T00:00:00Z', 'from 2000 to 2099'], ['2100-01-01T10:30:00+14:00', 'from 2000 to 2099 (the year as written)']]) {
      const res = await world.hosted('GET', `${path}?desiredDueTime=${encodeURIComponent(sent!)}`);
      expect([sent, res.status, res.body.messagesDetails[1]]).toEqual([sent, 400, { id: 'querystring.desiredDueTime', message: expect.stringContaining(why!), messageType: 'ERROR' }]);
    }
    const lastDay = await world.hosted('GET', `${path}?desiredDueTime=${encodeURIComponent('2099-12-31T23:59:59-12:00')}`);
    expect(lastDay.status).toBe(200); // 2100 in UTC, 2099 as written
    // A + offset not written %2B arrives as a space: the refusal says how to send it.
    const plus = await world.hosted('GET', `${path}?desiredDueTime=2030-12-03T18:30:00+01:00`);
    expect([plus.status, plus.body.messagesDetails[1].message]).toEqual([400, expect.stringContaining('write a + offset as %2B')]);
    const encoded = await world.hosted('GET', `${path}?desiredDueTime=2030-12-03T18:30:00%2B01:00`);
    expect([encoded.status, encoded.body.data?.desiredDueTime]).toEqual([200, '2030-12-03T17:30:00.000Z']);
  }); // prettier-ignore
});
