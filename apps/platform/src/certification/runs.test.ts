import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacHex } from '@stream/contracts/server/signature';
import { call } from '../../test/http.ts';
import { waitFor } from '../../test/wait.ts';
import { directCommands } from '../admin/commands.ts';
import { requestAccessToken, testPartner } from '../auth/testing.ts';
import { CERTIFICATION_TRIGGER_PATH } from '@stream/contracts/certification';
import { startCertificationRun } from '@stream/contracts/apis/partner/certification';
import {
  certificationFiles,
  certificationRuns,
  certificationWebhooks,
  partners,
} from '../db/schema/index.ts';
import { faultyPartner, type Fault } from './faulty-partner.ts';
import type { Db } from '../db/client.ts';
import { startOnboardingWorld, type OnboardingWorld } from '../onboarding/testing.ts';

/**
 * Certification through the Partner API: the platform runs the kit against the sandbox partners'
 * own base URLs (the mounted simulators), their webhooks come back to the run's inbox over HTTP,
 * and a passed run is recorded on the partner.
 */
let world: OnboardingWorld;
const tokens: Record<string, string> = {};
let webhookSecret = ''; // sandbox-pos's
const sandbox: Record<string, { base_url: string; webhook_secret: string }> = {};

beforeAll(async () => {
  world = await startOnboardingWorld();
  const { database, config } = world.platform.app.ctx;
  const list = await directCommands(database, config.encryptionKey).listPartners();
  for (const slug of ['sandbox-pos', 'sandbox-dsp', 'sandbox-events']) {
    const p = list.find((x) => x.slug === slug)!;
    const creds = { client_id: p.client_id!, client_secret: p.sandbox_credentials!.client_secret };
    tokens[slug] = (await requestAccessToken(world.url, creds)).access_token;
    if (slug === 'sandbox-pos') webhookSecret = p.sandbox_credentials!.webhook_secret;
    sandbox[slug] = { base_url: p.base_url!, webhook_secret: p.sandbox_credentials!.webhook_secret };
  }
}, 120_000);
afterAll(() => world?.stop());

const start = (slug: string, body: unknown = {}) =>
  call('POST', `${world.url}/certification/runs`, { token: tokens[slug]!, body });
const read = (slug: string, id: string) =>
  call('GET', `${world.url}/certification/runs/${id}`, { token: tokens[slug]! });
const finished = (slug: string, id: string) =>
  waitFor(
    async () => {
      const res = await read(slug, id);
      return ['passed', 'failed'].includes(res.body.run.status) ? res.body.run : undefined;
    },
    60_000,
    `run ${id}`,
  );

/** Runs `body` with the sandbox event provider behind a proxy that breaks one thing, then restores it. */
async function withFaultyEvents(
  fault: Fault,
  body: (events: { base_url: string; webhook_secret: string }, db: Db) => Promise<void>,
): Promise<void> {
  const events = sandbox['sandbox-events']!;
  const proxy = await faultyPartner(events.base_url, fault, events.webhook_secret);
  const { db } = world.platform.app.ctx;
  const registered = eq(partners.slug, 'sandbox-events');
  await db.update(partners).set({ baseUrl: proxy.url }).where(registered);
  try {
    await body(events, db);
  } finally {
    await db.update(partners).set({ baseUrl: events.base_url }).where(registered);
    await proxy.close();
  }
}

describe('POST /certification/runs', () => {
  it('certifies the sandbox POS, records it on the partner, and refuses a second run meanwhile', async () => {
    await world.pos.switches({ slow_ms: 150 }); // long enough to be caught running
    try {
      const res = await start('sandbox-pos');
      expect(res.status, res.text).toBe(202);
      expect(res.body.run).toMatchObject({
        kind: 'pos',
        status: 'queued',
        base_url: `${world.url}/sandbox/pos`,
        report: null,
      });
      expect(res.body.run.progress).toEqual({ done: 0, total: 20, current_check: null, waiting_for: null });
      const again = await start('sandbox-pos');
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('certification_in_progress');
      const partway = await waitFor(async () => {
        const r = (await read('sandbox-pos', res.body.run._id)).body.run;
        return r.status === 'running' && r.progress.done > 0 ? r : undefined;
      });
      expect(partway.report.checks[0].id).toBe('pos.oauth.authorize');

      await world.pos.switches({ slow_ms: 0 });
      const run = await finished('sandbox-pos', res.body.run._id);
      expect(
        run.report.checks.filter(
          (c: { required: boolean; status: string }) => c.required && c.status !== 'passed',
        ),
      ).toEqual([]);
      expect(run).toMatchObject({ status: 'passed', progress: { done: 20, total: 20 } });
      const { db } = world.platform.app.ctx;
      const [row] = await db.select().from(partners).where(eq(partners.slug, 'sandbox-pos'));
      expect(row!.certifiedRunId).toBe(run._id);
      // ... which is what lets the operator move it to live (once; again changes nothing).
      const commands = directCommands(
        world.platform.app.ctx.database,
        world.platform.app.ctx.config.encryptionKey,
      );
      const live = await commands.goLive('sandbox-pos');
      expect(live).toMatchObject({ slug: 'sandbox-pos', certified_run_id: run._id });
      expect((await commands.goLive('sandbox-pos')).live_at).toBe(live.live_at);
      const listed = (await commands.listPartners()).find((p) => p.slug === 'sandbox-pos')!;
      expect(listed).toMatchObject({ certified_run_id: run._id, live_at: live.live_at });
      // The webhooks came back to the run's inbox over HTTP, signed with the partner's secret.
      const received = await db
        .select()
        .from(certificationWebhooks)
        .where(eq(certificationWebhooks.runId, run._id));
      expect(received.map((w) => JSON.parse(w.raw).type)).toContain('order.status.updated');
      expect(received.every((w) => w.signature === 'valid')).toBe(true);
    } finally {
      await world.pos.resetSwitches();
    }
  });

  it('certifies the sandbox DSP with the v2 menu (its files downloaded from the platform) and the event provider', async () => {
    const dsp = await start('sandbox-dsp', { menu_form: 'v2' });
    const events = await start('sandbox-events');
    expect(events.status).toBe(202);
    const run = await finished('sandbox-dsp', dsp.body.run._id);
    expect(run.status).toBe('passed');
    const files = await world.platform.app.ctx.db
      .select()
      .from(certificationFiles)
      .where(eq(certificationFiles.runId, run._id));
    expect(files.map((f) => f.downloads)).toEqual([1, 1]);
    const eventsRun = await finished('sandbox-events', events.body.run._id);
    expect(eventsRun.status).toBe('passed');
    // Each webhook was answered as production's route answers it (POST /order/{partner_id}: a new order 202).
    const answered = (r: typeof run) =>
      r.report.checks.flatMap((c: { id: string; exchanges: { direction: string; status: number }[] }) =>
        c.exchanges.filter((e) => e.direction === 'received').map((e) => [c.id, e.status]),
      );
    expect(answered(run)).toEqual([
      ['dsp.webhooks.new-order', 202],
      ['dsp.webhooks.delivery-status', 200],
      ['dsp.webhooks.cancel-order', 200],
      ['dsp.events.fail', 202], // a new order of its own for each ending
      ['dsp.events.cancel', 202],
      ['dsp.webhooks.store-status', 200],
    ]);
    expect(answered(eventsRun)).toEqual([
      ['events.webhooks.assign-driver', 200],
      ['events.webhooks.delivery-status', 200],
    ]);
  });

  it('refuses an unknown field with 400 naming it, rather than running the defaults', async () => {
    const res = await start('sandbox-dsp', { menu_fomr: 'v2' });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.message).toContain('menu_fomr');
  });

  it('answers a body it cannot read with a code its reference lists', async () => {
    const notJson = await start('sandbox-dsp', '{"menu_form":');
    const text = await call('POST', `${world.url}/certification/runs`, {
      token: tokens['sandbox-dsp']!,
      headers: { 'content-type': 'text/plain' },
      body: 'v2',
    });
    expect([notJson.status, notJson.body.error.code]).toEqual([400, 'invalid_json']);
    expect([text.status, text.body.error.code]).toEqual([415, 'unsupported_media_type']);
    expect(startCertificationRun.errors).toEqual(
      expect.arrayContaining(['invalid_json', 'unsupported_media_type']),
    );
  });

  it('refuses menu_form for a POS or events run with 400 naming it (a DSP run field), and starts nothing', async () => {
    const { db } = world.platform.app.ctx;
    const runs = async () => (await db.select({ id: certificationRuns.id }).from(certificationRuns)).length;
    const before = await runs();
    for (const [slug, who] of [['sandbox-pos', 'a POS'], ['sandbox-events', 'an event provider']] as const) {
      for (const form of ['v1', 'v2']) {
        const res = await start(slug, { menu_form: form });
        expect(res.status, res.text).toBe(400);
        const problem = `applies only to DSP runs; ${who} has no menu file to check: leave it out`;
        expect(res.body.error).toMatchObject({
          code: 'validation_failed',
          message: `body.menu_form: ${problem}.`,
          details: [{ path: 'body.menu_form', message: problem }],
        });
      }
    }
    expect(await runs()).toBe(before);
  }); // prettier-ignore

  it('refuses what it cannot certify, and shows a run to its partner only', async () => {
    const white = await testPartner(world.platform);
    const commands = directCommands(
      world.platform.app.ctx.database,
      world.platform.app.ctx.config.encryptionKey,
    );
    await expect(commands.goLive(white.partner_id)).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/has no passed certification run/),
    });
    // Only a run through the Partner API is recorded: the message must not send it to the local kit.
    await expect(commands.goLive(white.partner_id)).rejects.toMatchObject({
      message: expect.stringContaining('a local stream-platform certify run is not recorded'),
    });
    const res = await call('POST', `${world.url}/certification/runs`, { token: white.token, body: {} });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'partner_not_certifiable' });
    const bad = await start('sandbox-pos', { menu_form: 'v3' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    const notObject = await start('sandbox-pos', [1]);
    expect(notObject.body.error.details[0].path).toBe('body'); // the body itself: not `body.`

    // No body at all is the defaults.
    const own = await call('POST', `${world.url}/certification/runs`, { token: tokens['sandbox-events']! });
    expect(own.status, own.text).toBe(202);
    const id = own.body.run._id;
    const other = await call('GET', `${world.url}/certification/runs/${id}`, { token: white.token });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('certification_run_not_found');
    await finished('sandbox-events', id);
  });

  it('shows a partner without the trigger which webhook to send by hand, and when the check gives up', async () => {
    await withFaultyEvents({ path: CERTIFICATION_TRIGGER_PATH, short: { status: 404, body: {} } }, async (events) => {
      const res = await start('sandbox-events');
      const id = res.body.run._id;
      // Acting as the partner: read what the run waits for, and send it (here through the sandbox's own trigger).
      for (const type of ['order.assign.driver', 'order.update.delivery.status']) {
        const { progress } = await waitFor(async () => {
          const run = (await read('sandbox-events', id)).body.run;
          return run.progress.waiting_for?.type === type ? run : undefined;
        });
        const { until, instruction, ...trigger } = progress.waiting_for;
        expect(progress.current_check).toMatch(/^events\.webhooks\./);
        expect(trigger).toEqual({
          type,
          webhook_url: `${world.url}/certification/runs/${id}/webhooks`,
          order_id: expect.stringMatching(/\w/),
          location_id: expect.stringMatching(/\w/),
        });
        expect(Date.parse(until)).toBeGreaterThan(Date.now());
        expect(instruction).toMatch(new RegExp(`^Send a signed ${type.replaceAll('.', '\\.')} webhook for order `));
        const body = JSON.stringify(trigger);
        const sent = await call('POST', `${events.base_url}${CERTIFICATION_TRIGGER_PATH}`, {
          body,
          headers: { 'content-type': 'application/json', 'x-stream-signature': hmacHex(events.webhook_secret, body) },
        });
        expect(sent.status, sent.text).toBe(202);
      }
      const run = await finished('sandbox-events', id);
      expect(run).toMatchObject({ status: 'passed', progress: { current_check: null, waiting_for: null } });
    });
  }); // prettier-ignore

  it('a webhook the inbox refuses (its Content-Type) is recorded, and the check says it arrived, was refused and why', async () => {
    await withFaultyEvents({ webhook: { type: 'order.assign.driver', contentType: 'text/plain' } }, async (events, db) => {
      const id = (await start('sandbox-events')).body.run._id;
      const run = await finished('sandbox-events', id);
      const inbox = `${world.url}/certification/runs/${id}/webhooks`;
      const check = run.report.checks.find((c: { id: string }) => c.id === 'events.webhooks.assign-driver');
      expect(check).toMatchObject({
        status: 'failed',
        fix:
          `The order.assign.driver webhook reached ${inbox} and was refused 415, as the platform refuses it: ` +
          'Content-Type text/plain: send the body as application/json.',
    });
    expect(check.exchanges.at(-1)).toMatchObject({ direction: 'received', url: inbox, status: 415 });
    expect(run.status).toBe('failed');
    const [kept] = await db
      .select()
      .from(certificationWebhooks)
      .where(eq(certificationWebhooks.runId, id))
      .orderBy(certificationWebhooks.id);
    expect(kept).toMatchObject({
      signature: 'valid',
      refused: { status: 415, code: 'unsupported_media_type', reason: 'Content-Type text/plain: send the body as application/json' },
    });
    expect(JSON.parse(kept!.raw).type).toBe('order.assign.driver');
    });
  }); // prettier-ignore

  it('a webhook over the body limit is answered 413, recorded as by how much (not its bytes), and the check says it was refused as too large', async () => {
    const limit = world.platform.app.ctx.config.bodyLimit;
    const huge = JSON.stringify({ type: 'order.assign.driver', padding: 'x'.repeat(limit) });
    await withFaultyEvents({ webhook: { type: 'order.assign.driver', raw: huge } }, async (events, db) => {
      const id = (await start('sandbox-events')).body.run._id;
      const run = await finished('sandbox-events', id);
      const inbox = `${world.url}/certification/runs/${id}/webhooks`;
      const over = Buffer.byteLength(huge) - limit;
      const reason = `the body is ${over} bytes over the ${limit}-byte limit: send at most ${limit} bytes`;
      const check = run.report.checks.find((c: { id: string }) => c.id === 'events.webhooks.assign-driver');
      expect(check).toMatchObject({
        status: 'failed',
        fix: `The order.assign.driver webhook reached ${inbox} and was refused 413, as the platform refuses it: ${reason}.`,
    });
    expect(check.exchanges.at(-1)).toMatchObject({ direction: 'received', url: inbox, status: 413 });
    const kept = await db.select().from(certificationWebhooks).where(eq(certificationWebhooks.runId, id));
    const refused = kept.filter((w) => w.refused);
    expect(refused.map((w) => [w.raw, w.refused])).toEqual([['', { status: 413, code: 'payload_too_large', reason }]]);
    });
  }); // prettier-ignore

  it("a run reads an accepted webhook as production does: a __proto__ key is dropped, not reported as sent", async () => {
    await withFaultyEvents({ webhook: { type: 'order.assign.driver', body: (b) => ({ ['__proto__']: { injected: true }, ...b }) } }, async (events, db) => {
      const id = (await start('sandbox-events')).body.run._id;
      const run = await finished('sandbox-events', id);
      const check = run.report.checks.find((c: { id: string }) => c.id === 'events.webhooks.assign-driver');
      expect(check.status).toBe('passed');
      const received = check.exchanges.at(-1);
      expect(received).toMatchObject({ direction: 'received', request_body: { type: 'order.assign.driver' } });
      expect(Object.keys(received.request_body)).not.toContain('__proto__');
      // What arrived is kept as sent.
      const kept = await db.select().from(certificationWebhooks).where(eq(certificationWebhooks.runId, id));
      expect(kept.some((w) => w.raw.startsWith('{"__proto__":{"injected":true},'))).toBe(true);
    });
  }); // prettier-ignore

  it("a run's inbox answers what it cannot read as the platform does (415, 400) and keeps it with why", async () => {
    await world.pos.switches({ slow_ms: 200 });
    try {
      const id = (await start('sandbox-pos')).body.run._id;
      const inbox = `${world.url}/certification/runs/${id}/webhooks`;
      const signed = (raw: string) => hmacHex(webhookSecret, raw);
      const sent = [
        { type: 'text/plain', raw: '{"type":"x"}' },
        { type: 'application/x-www-form-urlencoded', raw: 'type=x' },
        { type: undefined, raw: '{"type":"x"}' },
        { type: 'application/json', raw: '{"type":' },
        { type: 'application/json', raw: '' },
        { type: 'application/json', raw: '{"type":"x","note":"a\\u0000b"}' },
        { type: 'text/plain', raw: 'a\u0000b' },
        // Not JSON, and the parser's message quotes half of its one character (a lone surrogate).
        { type: 'application/json', raw: '\u{35e11}' },
      ];
      const answers = [];
      for (const { type, raw } of sent) {
        // fetch sends no Content-Type for bytes; a string it would call text/plain.
        const res = await fetch(inbox, {
          method: 'POST',
          headers: { ...(type ? { 'content-type': type } : {}), 'stream-webhook-signature': signed(raw) },
          body: new Uint8Array(Buffer.from(raw)),
        });
        answers.push([res.status, ((await res.json()) as { error: { code: string } }).error.code]);
      }
      expect(answers).toEqual([
        [415, 'unsupported_media_type'],
        [415, 'unsupported_media_type'],
        [415, 'unsupported_media_type'],
        [400, 'invalid_json'],
        [400, 'invalid_json'],
        [400, 'validation_failed'],
        [415, 'unsupported_media_type'],
        [400, 'invalid_json'],
      ]);
      const kept = await world.platform.app.ctx.db
        .select()
        .from(certificationWebhooks)
        .where(eq(certificationWebhooks.runId, id))
        .orderBy(certificationWebhooks.id);
      expect(kept.map((w) => [w.raw, w.signature, w.refused?.status, w.refused?.reason])).toEqual([
        ['{"type":"x"}', 'valid', 415, 'Content-Type text/plain: send the body as application/json'],
        ['type=x', 'valid', 415, 'Content-Type application/x-www-form-urlencoded: send the body as application/json'],
        ['{"type":"x"}', 'valid', 415, 'Content-Type (none): send the body as application/json'],
        ['{"type":', 'valid', 400, 'the body is not valid JSON: send the JSON you sign, as it is'],
        ['', 'valid', 400, "the body is empty: send the webhook's JSON"],
        ['{"type":"x","note":"a\\u0000b"}', 'valid', 400, 'body.note: must not contain the NUL character (\\u0000)'],
        ['a\ufffdb', 'valid', 415, 'Content-Type text/plain: send the body as application/json'],
        ['\u{35e11}', 'valid', 400, 'the body is not valid JSON: send the JSON you sign, as it is'],
      ]);
      expect(kept.at(-1)!.refused?.message).toMatch(/^The body is not valid JSON: Unexpected token '\ufffd'/);
      await world.pos.switches({ slow_ms: 0 });
      await finished('sandbox-pos', id);
    } finally {
      await world.pos.resetSwitches();
    }
  }); // prettier-ignore

  it("a run's inbox refuses a badly signed webhook with 401 and keeps it; a finished run's inbox is closed", async () => {
    await world.pos.switches({ slow_ms: 200 });
    try {
      const res = await start('sandbox-pos');
      const id = res.body.run._id;
      const body = JSON.stringify({
        type: 'location.status.updated',
        object: { status: 'active', location_id: 'x' },
      });
      const inbox = `${world.url}/certification/runs/${id}/webhooks`;
      // A partner that signs in upper-case hex is right too (the same digest).
      const upper = await call('POST', inbox, {
        body,
        headers: {
          'content-type': 'application/json',
          'stream-webhook-signature': hmacHex(webhookSecret, body).toUpperCase(),
        },
      });
      // Answered as POST /pos/{partner_slug}/webhook answers it: 204, no body.
      expect([upper.status, upper.text], upper.text).toEqual([204, '']);
      const refused = await call('POST', inbox, {
        body,
        headers: { 'content-type': 'application/json', 'stream-webhook-signature': hmacHex('wrong', body) },
      });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('signature_mismatch');
      const kept = await world.platform.app.ctx.db
        .select()
        .from(certificationWebhooks)
        .where(eq(certificationWebhooks.runId, id))
        .orderBy(certificationWebhooks.id); // in the order received (PostgreSQL keeps no order of its own)
      expect(kept.map((w) => w.signature)).toEqual(['valid', 'signature_mismatch']);
      await world.pos.switches({ slow_ms: 0 });
      await finished('sandbox-pos', id);
      const late = await call('POST', inbox, { body, headers: { 'content-type': 'application/json' } });
      expect(late.status).toBe(404);
    } finally {
      await world.pos.resetSwitches();
    }
  });
});
