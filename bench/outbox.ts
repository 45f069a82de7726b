/**
 * `npm run bench` (second part): how long a job written by a request waits before its handler
 * starts. Each sample commits one transaction that enqueues one job (as a route does) and measures
 * from the commit to the start of the handler, in the same process, with the platform's worker
 * running with its default settings. The baseline is a bare `select 1` round trip on the same
 * database, the least any start can cost. PGlite by default; DATABASE_URL for a PostgreSQL server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { z } from 'zod';
import { loadConfig } from '../apps/platform/src/config.ts';
import { defineJobKind } from '../apps/platform/src/jobs/kinds.ts';
import { enqueue } from '../apps/platform/src/jobs/outbox.ts';
import { startPlatform } from '../apps/platform/src/server.ts';
import { scratchDatabase } from './scratch-db.ts';

const SAMPLES = Number(process.env.BENCH_JOBS ?? 200);

let started: ((at: number) => void) | undefined;
const probe = defineJobKind({
  kind: 'bench.probe',
  payload: z.object({ n: z.number() }),
  maxAttempts: 1,
  deadlineMs: 60_000,
  backoff: { baseMs: 1000, maxMs: 1000 },
  handle: async () => {
    started?.(performance.now());
  },
});

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const fmt = (ms: number) => ms.toFixed(2);

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'stream-bench-outbox-'));
  const scratch = await scratchDatabase(process.env.DATABASE_URL);
  const config = {
    ...loadConfig({ DATA_DIR: dataDir, DATABASE_URL: scratch?.url }),
    port: 0,
    host: '127.0.0.1',
    publicUrl: '',
    sandbox: false,
    logLevel: 'silent',
  };
  const platform = await startPlatform(config, { logger: pino({ level: 'silent' }), jobKinds: [probe] });
  const { db } = platform.app.ctx;
  try {
    const roundTrips: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < SAMPLES + 20; i++) {
      const t0 = performance.now();
      await db.execute(sql`select 1`);
      const rt = performance.now() - t0;
      const start = new Promise<number>((resolve) => (started = resolve));
      await db.transaction((tx) => enqueue(tx, { kind: probe, payload: { n: i } }));
      const committed = performance.now();
      const at = await start;
      if (i < 20) continue; // warm-up
      roundTrips.push(rt);
      waits.push(at - committed);
      // Spread the samples so each meets an idle worker, as a request on a quiet platform does.
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
    }
    roundTrips.sort((a, b) => a - b);
    waits.sort((a, b) => a - b);
    const driver = platform.app.ctx.database.driver;
    console.log(
      `\nOutbox: commit of an enqueuing transaction -> handler start (${driver}, ${SAMPLES} jobs)\n`,
    );
    console.log('| what | p50 ms | p90 ms | p99 ms |');
    console.log('|---|---:|---:|---:|');
    for (const [name, xs] of [
      ['bare `select 1` round trip (baseline)', roundTrips],
      ['commit -> job handler starts', waits],
    ] as const) {
      console.log(`| ${name} | ${fmt(pct(xs, 0.5))} | ${fmt(pct(xs, 0.9))} | ${fmt(pct(xs, 0.99))} |`);
    }
  } finally {
    await platform.stop();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
