import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { loadConfig } from '../config.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/client.ts';
import { ensureSandboxPartners } from '../sandbox-bootstrap.ts';
import { testDatabase } from '../../test/db.ts';
import { directCommands, type AdminCommands } from './commands.ts';

/** The commands over a database, as both the CLI (no server) and the admin endpoint run them. */
let database: Database;
let commands: AdminCommands;
beforeAll(async () => {
  database = await testDatabase();
  const config = loadConfig({ ENCRYPTION_KEY: randomBytes(32).toString('base64'), DATA_DIR: '/nonexistent' });
  config.publicUrl = 'http://localhost:9999';
  const ctx = { config, database, db: database.db, log: pino({ level: 'silent' }) } as AppContext;
  await ensureSandboxPartners(ctx, () => {});
  commands = directCommands(database, config.encryptionKey);
});
afterAll(() => database?.close());

describe('admin commands', () => {
  it('lists partners without secrets, except the sandbox partners, whose secrets stay readable', async () => {
    const real = await commands.createPartner({ kind: 'dsp', slug: 'real-dsp', name: 'Real DSP' });
    const list = await commands.listPartners();
    expect(list.map((p) => p.slug).sort()).toEqual([
      'real-dsp',
      'sandbox-dsp',
      'sandbox-events',
      'sandbox-pos',
    ]);
    const shown = list.find((p) => p.slug === 'real-dsp')!;
    expect(shown).not.toHaveProperty('sandbox_credentials');
    expect(JSON.stringify(list)).not.toContain(real.client_secret);
    const pos = list.find((p) => p.slug === 'sandbox-pos')!;
    expect(pos.sandbox_credentials).toEqual({
      client_secret: expect.stringMatching(/^sk_/),
      webhook_secret: expect.stringMatching(/^whsec_/),
      oauth_client_secret: expect.stringMatching(/^sbxsec_/),
    });

    // Rotating a sandbox partner's client secret keeps its readable copy current.
    const rotated = await commands.rotateSecret('sandbox-pos', ['client', 'webhook']);
    const after = (await commands.listPartners()).find((p) => p.slug === 'sandbox-pos')!;
    expect(after.sandbox_credentials).toMatchObject({
      client_secret: rotated.client_secret,
      webhook_secret: rotated.webhook_secret,
    });
  });

  it('answers a taken slug with conflict and an unknown partner with unknown_partner', async () => {
    await expect(
      commands.createPartner({ kind: 'pos', slug: 'sandbox-pos', name: 'Again' }),
    ).rejects.toMatchObject({
      code: 'conflict',
      status: 409,
    });
    await expect(commands.rotateSecret('nobody', ['client'])).rejects.toMatchObject({
      code: 'unknown_partner',
      status: 404,
    });
  });
});
