import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { REDACTED, secret } from '@stream/contracts/secret';
import { PosTokenResponse } from '@stream/contracts/apis/become-a-pos/index';
import { testDatabase } from '../../test/db.ts';
import type { Database } from '../db/client.ts';
import { deliveryAttempts } from '../db/schema/index.ts';
import { DeliveryError, deliver } from './http.ts';

/** The delivery log: an attempt is on record before the call, and completed after it. */

let database: Database;
let url: string;
let close: () => Promise<void>;
/** Requests the server holds without answering, oldest first. */
const held: ServerResponse[] = [];
const bodies: string[] = [];

beforeAll(async () => {
  database = await testDatabase();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      if (req.url === '/hold') return void held.push(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 'at_live_secret', note: 'kept' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () =>
    new Promise((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await close?.();
  await database?.close();
});

const ctx = () => ({ db: database.db, log: pino({ level: 'silent' }) });
const rowsFor = (target: string) =>
  database.db.select().from(deliveryAttempts).where(eq(deliveryAttempts.url, target));

async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out');
}

describe('deliver', () => {
  it('records the attempt before the call: a call cut short (a crash) leaves a row with no outcome', async () => {
    const target = `${url}/hold`;
    const stop = new AbortController();
    const call = deliver(ctx(), { method: 'POST', url: target, body: { n: 1 }, signal: stop.signal });
    call.catch(() => undefined);
    // The partner has the request and has not answered: this is what a process killed now leaves.
    await until(async () => (held.length ? true : undefined));
    const [inFlight] = await rowsFor(target);
    expect(inFlight).toMatchObject({
      method: 'POST',
      requestBody: '{"n":1}',
      responseStatus: null,
      latencyMs: null,
      error: null,
      finishedAt: null,
    });

    // The process lives on and gives up (lease lost, draining): the same row gets its outcome.
    stop.abort();
    await expect(call).rejects.toBeInstanceOf(DeliveryError);
    const rows = await rowsFor(target);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.error).toMatch(/^aborted/);
    expect(rows[0]!.finishedAt).not.toBeNull();
    expect(rows[0]!.latencyMs).not.toBeNull();
  });

  it('redacts the fields the schemas mark secret, in the request and the answer', async () => {
    const target = `${url}/token`;
    const request = z.object({ client_id: z.string(), client_secret: secret(z.string()) });
    await deliver(ctx(), {
      method: 'POST',
      url: target,
      body: { client_id: 'platform', client_secret: 'cs_live_secret' },
      redact: { request, response: PosTokenResponse },
    });
    // The partner got the real values; the log has none.
    expect(bodies.at(-1)).toContain('cs_live_secret');
    const [row] = await rowsFor(target);
    expect(JSON.parse(row!.requestBody!)).toEqual({ client_id: 'platform', client_secret: REDACTED });
    expect(JSON.parse(row!.responseExcerpt!)).toEqual({ access_token: REDACTED, note: 'kept' });
    expect(row!.finishedAt).not.toBeNull();
  });
});
