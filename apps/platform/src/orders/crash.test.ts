import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../../test/db.ts';
import { waitFor } from '../../test/wait.ts';
import { freePort } from '../onboarding/testing.ts';
import { newOrder, postSigned, startOrderWorld, type OrderWorld, type Received } from './testing.ts';

/**
 * Nothing lost, nothing twice: 500 orders posted to two platform processes (plus the test's own) on
 * one PostgreSQL, each process SIGKILLed and restarted while the POS fails 30 % of its calls. Every
 * order must reach exactly one outcome at the DSP (events deduplicated by their Idempotency-Key, as
 * the contract tells DSPs to) and exactly one POS order (one idempotency key per DSP order).
 */

const BIN = fileURLToPath(new URL('../../bin/stream-platform.js', import.meta.url));
const ORDERS = 500;

describe.skipIf(!onPostgres)('order routing through crashes', () => {
  let w: OrderWorld;
  const children = new Map<string, ChildProcess>();
  const ports = new Map<string, number>();

  async function startProcess(name: string): Promise<void> {
    const port = ports.get(name) ?? (await freePort());
    ports.set(name, port);
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: (w.platform.app.ctx.database as { url?: string }).url,
        ENCRYPTION_KEY: w.platform.config.encryptionKey.toString('base64'),
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: w.url,
        SANDBOX: 'off',
        LOG_LEVEL: 'silent',
        WORKER_POLL_MS: '200',
      },
      stdio: 'ignore',
    });
    children.set(name, child);
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok,
      30_000,
      `${name} ready`,
    );
  }

  async function kill(name: string): Promise<void> {
    const child = children.get(name)!;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  beforeAll(async () => {
    w = await startOrderWorld();
    await Promise.all([startProcess('one'), startProcess('two')]);
  }, 60_000);
  afterAll(async () => {
    for (const child of children.values())
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await w?.stop();
  });

  it('gives every order exactly one outcome and one POS order', { timeout: 240_000 }, async () => {
    w.pos.answer = (body) =>
      Math.random() < 0.3
        ? { status: 503, body: { error: 'flaky' } }
        : {
            status: 200,
            body: {
              order: { provider_id: `pos-${(body.object as { idempotency_key: string }).idempotency_key}` },
            },
          };
    const bodies = Array.from({ length: ORDERS }, () => newOrder(w));
    // A DSP retries a post until it is answered 2xx, round robin over the processes alive.
    const names = ['one', 'two'];
    let next = 0;
    const post = async (body: unknown) => {
      for (;;) {
        const name = names[next++ % names.length]!;
        const res = await postSigned(
          `http://127.0.0.1:${ports.get(name)}/order/${w.dspPartner.partner_id}`,
          w.dspPartner.webhook_secret,
          body,
        ).catch(() => undefined);
        if (res && res.status === 202) return res;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const posting = (async () => {
      for (let i = 0; i < ORDERS; i += 25) await Promise.all(bodies.slice(i, i + 25).map(post));
    })();
    for (const name of ['one', 'two']) {
      await waitFor(
        () => w.dsp.ofPath('/stream-dsp/v1/event').length > ORDERS / 5 || undefined,
        60_000,
        'orders flowing',
      );
      await kill(name);
      await startProcess(name);
    }
    await posting;

    const outcomes = () => {
      const byOrder = new Map<string, Set<string>>();
      for (const e of w.dsp.ofPath('/stream-dsp/v1/event')) {
        const b = e.body as { type: string; order_id: string };
        if (b.type !== 'location.order.accept' && b.type !== 'location.order.fail') continue;
        const keys = byOrder.get(b.order_id) ?? new Set();
        keys.add(`${b.type} ${String(e.headers['idempotency-key'])}`);
        byOrder.set(b.order_id, keys);
      }
      return byOrder;
    };
    await waitFor(() => outcomes().size === ORDERS || undefined, 180_000, 'an outcome for every order');

    const byOrder = outcomes();
    for (const body of bodies) expect(byOrder.get(body.order.id)?.size, body.order.id).toBe(1);
    const posKeys = new Map<string, Set<string>>();
    for (const r of w.pos.ofPath('/stream-pos/v1/orders') as Received[]) {
      const o = (r.body as { object: { source_order_id: string; idempotency_key: string } }).object;
      posKeys.set(o.source_order_id, (posKeys.get(o.source_order_id) ?? new Set()).add(o.idempotency_key));
    }
    for (const body of bodies) expect(posKeys.get(body.order.id)?.size, body.order.id).toBe(1);
  });
});
