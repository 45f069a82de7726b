import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxServer } from '@stream/sandbox';

/** `stream-platform certify` as a partner runs it in its CI: a real process against a real simulator. */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const client = { client_id: 'platform', client_secret: 'sbxsec_cli' };
const secret = 'whsec_cli';
let pos: FastifyInstance;
let posUrl: string;
const dir = mkdtempSync(join(tmpdir(), 'certify-'));

beforeAll(async () => {
  pos = createSandboxServer('pos', { clients: [client], tokenSecret: 'tokens', webhookSecret: secret });
  posUrl = await pos.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await pos.close();
  rmSync(dir, { recursive: true, force: true });
});

function certify(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'apps/platform/src/cli.ts', 'certify', ...args],
      { cwd: ROOT, env: { ...process.env, PUBLIC_URL: 'https://docs.example.test' }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const credentials = ['--client-id', client.client_id, '--client-secret', client.client_secret];

describe('stream-platform certify', () => {
  it('certifies the sandbox POS: exit 0, progress on stderr, the JSON report on stdout and in files', async () => {
    const json = join(dir, 'report.json');
    const junit = join(dir, 'report.xml');
    const run = await certify(
      'pos',
      '--base-url',
      posUrl,
      '--webhook-secret',
      secret,
      ...credentials,
      '--json',
      json,
      '--junit',
      junit,
    );
    expect(run.stderr).toContain(`Certifying the pos implementation at ${posUrl}`);
    expect(run.stderr).toMatch(
      /^PASS pos\.orders\.accept {2}A new order is accepted with your id of it \(\d+ ms\)$/m,
    );
    expect(run.stderr).toMatch(/^PASS pos\.orders\.reject/m);
    expect(run.stderr).toMatch(
      /^CERTIFIED: every required check passed \(\d+ passed, 0 failed, 0 skipped of \d+\)\.$/m,
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ kind: 'pos', base_url: posUrl, passed: true });
    expect(JSON.parse(readFileSync(json, 'utf8'))).toEqual(report);
    const xml = readFileSync(junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toMatch(/<testsuite name="pos" tests="\d+" failures="0" errors="0" skipped="0"/);
  });

  // Five CLI processes, each loading tsx: seconds apiece on a loaded machine.
  it(
    'exits 1 against an unreachable implementation, saying so, and 2 for bad arguments',
    { timeout: 120_000 },
    async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const down = await certify(
        'events',
        '--base-url',
        `http://127.0.0.1:${port}`,
        '--webhook-secret',
        secret,
        '--timeout-ms',
        '2000',
      );
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(
        new RegExp(
          `^FAIL events\\.receive\\.confirmed .*\\n {7}POST http://127\\.0\\.0\\.1:${port}/event got no answer \\(ECONNREFUSED\\)`,
          'm',
        ),
      );
      expect(down.stderr).toMatch(/^NOT CERTIFIED/m);

      const usage = await certify('pos', '--base-url', posUrl, '--webhook-secret', secret);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('certify pos needs --client-id and --client-secret (or --token).');
      const base = ['events', '--base-url', posUrl, '--webhook-secret', secret];
      const json = await certify(...base, '--json', '/nonexistent/dir/r.json');
      expect(json.code).toBe(2);
      expect(json.stderr).toContain(
        '--json /nonexistent/dir/r.json: cannot write in /nonexistent/dir (ENOENT).',
      );
      expect(json.stdout).toBe(''); // refused before the run, not after it
      const url = await certify(...base, '--public-url', 'ftp://x');
      expect(url.code).toBe(2);
      expect(url.stderr).toContain('--public-url must be an http:// or https:// URL (got "ftp://x").');

      const busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      const taken = `127.0.0.1:${(busy.address() as AddressInfo).port}`;
      const listen = await certify(...base, '--listen', taken).finally(() => busy.close());
      expect(listen.code).toBe(1);
      expect(listen.stderr.trim()).toBe(
        `stream-platform: --listen ${taken}: cannot listen there (the port is in use).`,
      );
      const kind = await certify('kiosk');
      expect(kind.code).toBe(2);
      expect(kind.stderr).toContain('certify has no kind "kiosk": pos, dsp or events.');
    },
  );

  it('exits 2 for --menu-form on a POS or events run (a DSP run flag), before the run, rather than ignore it', async () => {
    for (const [args, who] of [
      [['events', '--base-url', posUrl, '--webhook-secret', secret], 'an event provider'],
      [['pos', '--base-url', posUrl, '--webhook-secret', secret, ...credentials], 'a POS'],
    ] as const) {
      const form = await certify(...args, '--menu-form', 'v2');
      expect([form.code, form.stdout]).toEqual([2, '']);
      expect(form.stderr).toContain(
        `--menu-form applies only to DSP runs; ${who} has no menu file to check: leave it out.`,
      );
    }
  });

  it('exits 2 for --client-id, --client-secret or --token on an events run (no OAuth there), before the run, rather than ignore them', async () => {
    const events = ['events', '--base-url', posUrl, '--webhook-secret', secret];
    const runs = await Promise.all([
      certify(...events, ...credentials),
      certify(...events, '--client-secret', client.client_secret),
      certify(...events, '--token', 'a-merchant-token'),
    ]);
    const said = (flag: string) =>
      `--${flag} applies only to POS and DSP runs; an event provider has no OAuth to check: leave it out.`;
    for (const [run, flag] of [
      [runs[0]!, 'client-id'],
      [runs[1]!, 'client-secret'],
      [runs[2]!, 'token'],
    ] as const) {
      expect([run.code, run.stdout]).toEqual([2, '']);
      expect(run.stderr).toContain(said(flag));
      expect(run.stderr).not.toContain('Certifying'); // refused before the run
    }
  });

  it('exits 2 for a timeout no timer can hold (Node fires one past 2^31-1 ms after 1 ms), before the run', async () => {
    const pos = ['pos', '--base-url', posUrl, '--webhook-secret', secret, ...credentials];
    for (const flag of ['timeout-ms', 'webhook-wait-ms']) {
      const run = await certify(...pos, `--${flag}`, '2147483648');
      expect([flag, run.code, run.stdout]).toEqual([flag, 2, '']);
      expect(run.stderr).toContain(`--${flag} must be a whole number of milliseconds, 1 to 2147483647 (got "2147483648").`);
      expect(run.stderr).not.toContain('Certifying');
    }
  }); // prettier-ignore
});
