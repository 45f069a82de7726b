import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_COMPANY } from '@stream/contracts/apis/hr-menu/demo';
import { call } from '../../test/http.ts';

/**
 * The `stream-platform` CLI as an operator runs it: real processes on one shared data folder
 * (a fresh PGlite folder costs seconds, so the tests build on each other in order). Under
 * DATABASE_URL the same tests run on a fresh PostgreSQL database made here.
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const onPostgres = Boolean(process.env.DATABASE_URL);
const SLOW = 300_000; // a limit for loaded machines only: each step takes seconds

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

let dataDir: string;
let env: NodeJS.ProcessEnv;
let dropDatabase: (() => Promise<void>) | undefined;
let server!: Server;

function spawnCli(args: string[], extraEnv: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'apps/platform/src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function cli(...args: string[]): Promise<Run> {
  const child = spawnCli(args);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** A `serve` process and the JSON log lines it has written so far. */
interface Server {
  child: ChildProcess;
  url: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  logs: any[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  waitForLog(match: (line: any) => boolean): Promise<any>;
  exited: Promise<number | null>;
}

async function startServer(): Promise<Server> {
  const port = await freePort();
  const child = spawnCli(['serve'], { PORT: String(port) });
  const logs: unknown[] = [];
  const waiters: { match: (l: unknown) => boolean; resolve: (l: unknown) => void }[] = [];
  let buffered = '';
  child.stdout!.on('data', (d) => {
    buffered += d;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const text of lines) {
      let line: unknown;
      try {
        line = JSON.parse(text);
      } catch {
        continue;
      }
      logs.push(line);
      for (const w of waiters.splice(0)) {
        if (w.match(line)) w.resolve(line);
        else waiters.push(w);
      }
    }
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitForLog = (match: (l: unknown) => boolean) =>
    new Promise<unknown>((resolve, reject) => {
      const seen = logs.find(match);
      if (seen) return resolve(seen);
      waiters.push({ match, resolve });
      void exited.then((code) => reject(new Error(`serve exited (${code}) first: ${stderr}`)));
    });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  await waitForLog((l: any) => l.msg === 'stream platform listening');
  return { child, url: `http://127.0.0.1:${port}`, logs, waitForLog, exited };
}

const adminEndpoint = () => JSON.parse(readFileSync(join(dataDir, 'admin.json'), 'utf8'));
const lockPid = () => Number(readFileSync(join(dataDir, 'platform.lock'), 'utf8'));

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'stream-cli-'));
  chmodSync(dataDir, 0o755); // as a folder made by hand would be: the platform makes it private
  const { DATABASE_URL: serverUrl, ...inherited } = process.env;
  env = { ...inherited, DATA_DIR: dataDir, HOST: '127.0.0.1', SANDBOX: 'off', LOG_LEVEL: 'info' };
  if (serverUrl) {
    const name = `stream_cli_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    dropDatabase = async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    };
  }
});

afterAll(async () => {
  if (server?.child.exitCode === null) {
    server.child.kill('SIGKILL'); // a failed test left it running
    await server.exited;
  }
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('stream-platform CLI', () => {
  it(
    'rejects bad arguments with a message naming what to fix and exit code 2',
    async () => {
      // The messages themselves are covered in-process (arguments.test.ts); here: what a shell sees.
      const cases: [string[], RegExp][] = [
        [['frobnicate'], /Unknown command "frobnicate"/],
        [
          ['partners', 'create', '--kind', 'pos', '--slug', 'ab', '--name', 'X', '--colour', 'red'],
          /'--colour'/,
        ],
        [
          ['partners', 'create', '--kind', 'kiosk', '--slug', 'ab', '--name', 'X'],
          /--kind: "kiosk" is not one of/,
        ],
      ];
      const runs = await Promise.all(cases.map(([args]) => cli(...args)));
      runs.forEach((run, i) => {
        expect(run.code, cases[i]![0].join(' ')).toBe(2);
        expect(run.stderr).toMatch(cases[i]![1]);
        expect(run.stderr).toContain('Usage');
        expect(run.stdout).toBe('');
      });
    },
    SLOW,
  );

  let offline: { slug: string; partner_id: string; client_id: string };

  it(
    'creates, lists and rotates partners with no server running',
    async () => {
      const created = await cli(
        ...['partners', 'create', '--kind', 'pos', '--slug', 'acme-pos', '--name', 'Acme POS'],
        ...['--base-url', 'https://pos.acme.example/', '--scopes', 'user,onboarding'],
        ...['--oauth-client-id', 'stream-at-acme', '--oauth-client-secret', 'acme-issued-secret'],
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      expect(created.json).toEqual({
        partner_id: expect.stringMatching(/^ptr_/),
        slug: 'acme-pos',
        kind: 'pos',
        client_id: expect.stringMatching(/^cli_/),
        client_secret: expect.stringMatching(/^sk_[\w-]{43}$/),
        webhook_secret: expect.stringMatching(/^whsec_[\w-]{43}$/),
      });
      offline = created.json;

      const listed = await cli('partners', 'list');
      expect(listed.code).toBe(0);
      expect(listed.json).toEqual([
        {
          id: offline.partner_id,
          kind: 'pos',
          slug: 'acme-pos',
          name: 'Acme POS',
          base_url: 'https://pos.acme.example',
          client_id: offline.client_id,
          oauth_client_id: 'stream-at-acme',
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          certified_run_id: null,
          certified_at: null,
          live_at: null,
        },
      ]);
      // Not certified yet: it stays in sandbox.
      const live = await cli('partners', 'go-live', '--slug', 'acme-pos');
      expect(live.code).toBe(1);
      expect(live.stderr).toContain('acme-pos has no passed certification run');
      for (const secret of [created.json.client_secret, created.json.webhook_secret, 'acme-issued-secret']) {
        expect(listed.stdout).not.toContain(secret);
      }

      const duplicate = await cli(
        'partners',
        'create',
        '--kind',
        'dsp',
        '--slug',
        'acme-pos',
        '--name',
        'Again',
      );
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toMatch(/slug "acme-pos" already exists/);

      const both = await cli('partners', 'rotate-secret', '--slug', 'acme-pos'); // default: both secrets
      expect(both.code).toBe(0);
      expect(both.json).toEqual({
        partner_id: offline.partner_id,
        slug: 'acme-pos',
        client_id: offline.client_id,
        client_secret: expect.stringMatching(/^sk_/),
        webhook_secret: expect.stringMatching(/^whsec_/),
      });
      expect(both.json.client_secret).not.toBe(created.json.client_secret);
      expect(both.json.webhook_secret).not.toBe(created.json.webhook_secret);

      expect(existsSync(join(dataDir, 'platform.lock'))).toBe(false); // each command let go of the folder
    },
    SLOW,
  );

  it(
    'serves with a request id in a response header and in its JSON logs',
    async () => {
      server = await startServer();
      const res = await fetch(`${server.url}/healthz`);
      expect(res.status).toBe(200);
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^req_[0-9a-f]{32}$/);
      const line = await server.waitForLog((l) => l.reqId === id && l.res?.statusCode === 200);
      expect(line).toMatchObject({ service: 'stream-platform', level: 30 });
      expect((await call('GET', `${server.url}/readyz`)).body.status).toBe('ready');
      // No SMTP_URL: it says where Store API e-mail goes instead.
      const mail = await server.waitForLog(
        (l) => (l as { msg?: string }).msg?.startsWith('SMTP_URL is not set') ?? false,
      );
      expect(mail).toMatchObject({ mailDir: join(dataDir, 'mail') });
    },
    SLOW,
  );

  it.skipIf(onPostgres)(
    'refuses a second serve on the same data folder, clearly, with exit code 1',
    async () => {
      const second = await cli('serve');
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`is in use by process ${server.child.pid}`);
      expect(lockPid()).toBe(server.child.pid);
      expect(adminEndpoint().pid).toBe(server.child.pid); // the refused serve left the admin file alone
    },
    SLOW,
  );

  it(
    'keeps the data folder private (0700) and the files it writes there 0600',
    async () => {
      // PGlite writes its files 0666 whatever the umask: the folder's mode is what keeps them private.
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      const own = ['encryption.key', 'admin.json', ...(onPostgres ? [] : ['platform.lock'])];
      for (const file of own) {
        expect([file, statSync(join(dataDir, file)).mode & 0o777]).toEqual([file, 0o600]);
      }
      // Loosened by hand: the next start or command tightens it again.
      chmodSync(dataDir, 0o755);
      expect((await cli('partners', 'list')).code).toBe(0);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    },
    SLOW,
  );

  it(
    'hides the admin endpoint from callers without the token',
    async () => {
      const endpoint = adminEndpoint();
      expect(endpoint).toEqual({
        url: server.url,
        token: expect.stringMatching(/^adm_/),
        pid: server.child.pid,
      });
      expect(statSync(join(dataDir, 'admin.json')).mode & 0o777).toBe(0o600);
      const unknownRoute = await call('GET', `${server.url}/_admin/nothing-here`);
      for (const token of [undefined, 'adm_wrong', `${endpoint.token}x`]) {
        const res = await call('GET', `${server.url}/_admin/partners`, token ? { token } : {});
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe(unknownRoute.body.error.code);
        expect(res.body.error.message).toBe('There is no GET /_admin/partners route.');
      }
      const allowed = await call('GET', `${server.url}/_admin/partners`, { token: endpoint.token });
      expect(allowed.status).toBe(200);
      expect(allowed.body.map((p: { slug: string }) => p.slug)).toEqual(['acme-pos']); // created offline, kept
    },
    SLOW,
  );

  it(
    'works the same while the server runs, through the server and not the folder',
    async () => {
      const created = await cli(
        ...['partners', 'create', '--kind', 'white_label', '--slug', 'brand-co', '--name', 'Brand Co'],
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      expect(created.json).toMatchObject({
        slug: 'brand-co',
        kind: 'white_label',
        client_id: expect.any(String),
      });

      const duplicate = await cli(
        'partners',
        'create',
        '--kind',
        'pos',
        '--slug',
        'brand-co',
        '--name',
        'Again',
      );
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toMatch(/slug "brand-co" already exists/);

      // A partner's view: its credentials work, and after rotation the old ones fail at once.
      const token = (secret: string, extra: object = {}) =>
        call('POST', `${server.url}/oauth/token`, {
          body: {
            grant_type: 'client_credentials',
            client_id: created.json.client_id,
            client_secret: secret,
            ...extra,
          },
        });
      const before = await token(created.json.client_secret);
      expect(before.status).toBe(201);
      // Without --scopes a white-label partner gets the white-label scopes (a POS, DSP or event provider none).
      expect(before.body.scopes).toEqual(['user', 'onboarding', 'legacy_onboarding', 'sso', 'billing']);
      // set-scopes through the running server's admin endpoint: the next token carries what it set.
      const narrowed = await cli('partners', 'set-scopes', '--slug', 'brand-co', '--scopes', 'sso,billing');
      expect([narrowed.code, narrowed.stderr, narrowed.json?.scopes]).toEqual([0, '', ['sso', 'billing']]);
      expect((await token(created.json.client_secret)).body.scopes).toEqual(['sso', 'billing']);

      const webhook = await cli('partners', 'rotate-secret', '--slug', 'brand-co', '--which', 'webhook');
      expect(webhook.code).toBe(0);
      expect(Object.keys(webhook.json).sort()).toEqual(['partner_id', 'slug', 'webhook_secret']);
      expect((await token(created.json.client_secret)).status).toBe(201); // the client secret is untouched

      const rotated = await cli('partners', 'rotate-secret', '--slug', 'brand-co', '--which', 'client');
      expect(rotated.code).toBe(0);
      const old = await token(created.json.client_secret);
      expect([old.status, old.body.error.code]).toEqual([401, 'invalid_client']);
      expect((await token(rotated.json.client_secret)).status).toBe(201);
      const refresh = await token(rotated.json.client_secret, {
        grant_type: 'refresh_token',
        refresh_token: before.body.refresh_token,
      });
      expect([refresh.status, refresh.body.error.code]).toEqual([400, 'invalid_grant']); // its tokens were revoked

      const keys = await cli('keys', 'rotate');
      expect(keys.code).toBe(0);
      expect(keys.json).toEqual({
        kid: expect.stringMatching(/^key_/),
        retired: [expect.stringMatching(/^key_/)],
      });
      const jwks = await call('GET', `${server.url}/.well-known/jwks.json`);
      expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual([
        keys.json.kid,
        ...keys.json.retired,
      ]);

      const unknown = await cli('partners', 'rotate-secret', '--slug', 'nobody');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/No partner with id or slug "nobody"/);

      // `..` would be resolved as a path step and reach another admin route (with exit 0). On
      // PostgreSQL the CLI reads the database itself, which knows no such id either.
      for (const args of [
        ['events', 'list', '..'],
        ['orders', 'show', '..'],
        ['orders', 'show', 'x'.repeat(5000)],
      ]) {
        const odd = await cli(...args);
        expect([
          args.join(' ').slice(0, 30),
          odd.code,
          odd.stdout,
          odd.stderr.trim().split('\n').length,
        ]).toEqual([args.join(' ').slice(0, 30), 1, '', 1]);
        if (!onPostgres) expect(odd.stderr).toMatch(/^stream-platform: ".{1,40}" is not an id\.\n$/);
      }

      const listed = await cli('partners', 'list');
      expect(listed.code).toBe(0);
      expect(listed.json.map((p: { slug: string }) => p.slug)).toEqual(['acme-pos', 'brand-co']);

      expect((await cli('migrate')).json).toEqual({
        migrated: true,
        driver: onPostgres ? 'postgres' : 'pglite',
      });

      // The server saw it all: its own view of the partners, and (on PGlite) the CLI's calls.
      const viaServer = await call('GET', `${server.url}/_admin/partners`, { token: adminEndpoint().token });
      expect(viaServer.body.map((p: { slug: string }) => p.slug)).toEqual(['acme-pos', 'brand-co']);
      if (!onPostgres) {
        expect(lockPid()).toBe(server.child.pid);
        const adminCalls = server.logs.filter(
          (l) => l.msg === 'incoming request' && l.req.url.startsWith('/_admin/'),
        );
        expect(adminCalls.map((l) => `${l.req.method} ${l.req.url}`)).toEqual(
          expect.arrayContaining([
            'POST /_admin/partners',
            'POST /_admin/partners/brand-co/rotate-secret',
            'POST /_admin/keys/rotate',
            'GET /_admin/partners',
            'POST /_admin/migrate',
          ]),
        );
      }
    },
    SLOW,
  );

  it(
    'manages event providers and menu settings through the running server; bad calls say why',
    async () => {
      const created = await cli(
        ...['partners', 'create', '--kind', 'events', '--slug', 'fleet-co', '--name', 'Fleet Co'],
      );
      expect(created.code).toBe(0);
      const status = await cli('events', 'status');
      expect([status.code, status.stderr]).toEqual([0, '']);
      expect(status.json.find((p: { slug: string }) => p.slug === 'fleet-co')).toEqual({
        provider_id: created.json.partner_id,
        slug: 'fleet-co',
        name: 'Fleet Co',
        delivery: {
          state: 'closed',
          failure_rate: 0,
          alerting: false,
          opened_at: null,
          retry_at: null,
          last_error: null,
        },
      });
      const unknown = await cli('events', 'enable', 'loc_missing', 'fleet-co');
      expect([unknown.code, unknown.stderr]).toEqual([1, 'stream-platform: No org location loc_missing.\n']);
      const usage = await cli('events', 'enable', 'loc_missing');
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('events enable takes a location id and a provider.');
      expect((await cli('events')).code).toBe(2);

      // Menus: a DSP's settings, and a publish on demand.
      await cli(...['partners', 'create', '--kind', 'dsp', '--slug', 'menu-dsp', '--name', 'Menu DSP']);
      const v2 = await cli('partners', 'menu-settings', '--slug', 'menu-dsp', '--menu-form', 'v2');
      expect([v2.code, v2.json]).toEqual([
        0,
        { slug: 'menu-dsp', menu_form: 'v2', max_modifier_depth: 3, price_platform: null },
      ]);
      const depth = await cli(
        'partners',
        'menu-settings',
        '--slug',
        'menu-dsp',
        '--max-modifier-depth',
        'deep',
      );
      expect(depth.code).toBe(2);
      expect(depth.stderr).toContain('--max-modifier-depth');
      const notDsp = await cli('partners', 'menu-settings', '--slug', 'fleet-co', '--menu-form', 'v2');
      expect(notDsp.stderr).toContain('menu settings are a DSP');
      const publish = await cli('menus', 'publish', 'loc_missing');
      expect([publish.code, publish.stderr]).toEqual([1, 'stream-platform: No org location loc_missing.\n']);

      // Hosted APIs: a company file in, a partner granted it, its token reaching the store.
      const file = join(dataDir, 'company.json');
      writeFileSync(file, JSON.stringify(DEMO_COMPANY));
      const imported = await cli('companies', 'import', file);
      expect([imported.code, imported.json]).toEqual([0, { company_id: 100, stores: 2, menus: 2 }]);
      expect((await cli('companies', 'import', file)).json).toEqual(imported.json); // the same file again
      const granted = await cli('companies', 'grant', '100', 'fleet-co');
      expect(granted.code).toBe(0);
      // An event provider created without --scopes: the grant's scopes are all its root client has.
      expect(granted.json).toMatchObject({ company_id: 100, scopes: ['menu', 'orders', 'stores'] });
      writeFileSync(file, JSON.stringify({ company: { id: 100 }, stores: [] }));
      const bad = await cli('companies', 'import', file);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('company.name');
      expect((await cli('companies', 'grant', '999', 'fleet-co')).stderr).toContain('No company 999');
      expect((await cli('companies', 'grant', 'x', 'fleet-co')).code).toBe(2);
      const move = await cli('companies', 'order-status', '999999', 'ready');
      expect([move.code, move.stderr]).toEqual([1, 'stream-platform: No hosted order 999999.\n']);
    },
    SLOW,
  );

  it(
    'on SIGTERM finishes the request in flight, then exits 0 and lets go of the folder',
    async () => {
      const { token } = adminEndpoint();
      const body = Buffer.from(JSON.stringify({ kind: 'events', slug: 'late-events', name: 'Late Events' }));
      const req = request(`${server.url}/_admin/partners`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': body.length,
          'x-request-id': 'drain-test',
        },
      });
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        req.on('response', (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
      });
      req.write(body.subarray(0, 10)); // the request is in flight: headers and part of the body sent
      await server.waitForLog((l) => l.reqId === 'drain-test' && l.msg === 'incoming request');
      server.child.kill('SIGTERM');
      await server.waitForLog((l) => l.msg === 'draining');
      req.end(body.subarray(10));

      const res = await response;
      expect(res.status).toBe(201);
      expect(JSON.parse(res.text)).toMatchObject({ slug: 'late-events', kind: 'events' });
      expect(await server.exited).toBe(0);
      expect(existsSync(join(dataDir, 'admin.json'))).toBe(false);
      expect(existsSync(join(dataDir, 'platform.lock'))).toBe(false);

      const listed = await cli('partners', 'list'); // the drained request's write is durable
      expect(listed.json.map((p: { slug: string }) => p.slug)).toEqual([
        'acme-pos',
        'brand-co',
        'fleet-co',
        'menu-dsp',
        'late-events',
      ]);
    },
    SLOW,
  );

  it(
    'names a DATA_DIR that is no folder in one line, never a stack trace or a hang',
    async () => {
      for (const dir of [join(ROOT, 'package.json'), join(ROOT, 'package.json', 'below')]) {
        const child = spawnCli(['partners', 'list'], { DATA_DIR: dir, DATABASE_URL: '' });
        let stderr = '';
        child.stderr!.on('data', (d) => (stderr += d));
        const code = await new Promise((resolve) => child.on('close', resolve));
        expect([code, stderr.trim().split('\n').length]).toEqual([1, 1]);
        expect(stderr).toContain(`DATA_DIR ${dir} cannot be used as the data folder`);
      }
    },
    SLOW,
  );

  it(
    'answers --version (and -v) with the platform version',
    async () => {
      const { version } = JSON.parse(readFileSync(join(ROOT, 'apps/platform/package.json'), 'utf8'));
      expect(version).toMatch(/^\d+\.\d+\.\d+/);
      for (const flag of ['--version', '-v']) {
        const run = await cli(flag);
        expect([run.code, run.stdout, run.stderr]).toEqual([0, `${version}\n`, '']);
      }
    },
    SLOW,
  );

  it(
    'runs through the package bin, as `npx stream-platform`',
    async () => {
      const child = spawn(process.execPath, ['apps/platform/bin/stream-platform.js', '--help'], {
        cwd: ROOT,
        env,
      });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      expect(stdout).toContain('partners rotate-secret');
    },
    SLOW,
  );
});
