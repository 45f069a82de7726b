import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isBuildFresh, sourcesHash } from '../../../../scripts/ensure-docs-build.mjs';

/** `npm start` as a supervisor or a container runtime runs it, and its docs-build decision. */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SLOW = 300_000; // a limit for loaded machines only
const temp = mkdtempSync(join(tmpdir(), 'stream-npm-start-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

const answers = (url: string) =>
  fetch(url).then(
    (res) => res.status,
    () => undefined,
  );

describe('npm start', () => {
  it(
    'stops when npm gets SIGTERM: the server drains, the port closes, DATA_DIR is free again',
    async () => {
      const dataDir = join(temp, 'data');
      const port = await freePort();
      // eslint-disable-next-line @typescript-eslint/no-unused-vars
      const { DATABASE_URL, ...inherited } = process.env; // PGlite: the folder lock is the point
      const env = { ...inherited, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir };
      const npm = spawn('npm', ['start'], {
        cwd: ROOT,
        env: { ...env, SKIP_DOCS_BUILD: '1', LOG_LEVEL: 'info', SANDBOX: 'off' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      npm.stdout.on('data', (d) => (output += d));
      npm.stderr.on('data', (d) => (output += d));
      // The server writes to the same pipe: it closes once npm and the server have both exited.
      const pipeClosed = new Promise<void>((resolve) => npm.stdout.on('close', resolve));
      const npmExited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));

      const url = `http://127.0.0.1:${port}/healthz`;
      while ((await answers(url)) !== 200) {
        if (npm.exitCode !== null) throw new Error(`npm start exited (${npm.exitCode}): ${output}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(existsSync(join(dataDir, 'platform.lock'))).toBe(true);

      npm.kill('SIGTERM'); // npm's own pid, as a supervisor would
      const code = await npmExited;
      await pipeClosed;
      expect(code).toBe(0); // npm passes the server's exit code on: 0, drained cleanly
      const logs = output
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg: string });
      expect(logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['draining', 'stopped']));
      expect(await answers(url)).toBeUndefined(); // connection refused: nobody listens any more
      expect(existsSync(join(dataDir, 'platform.lock'))).toBe(false);
      expect(existsSync(join(dataDir, 'admin.json'))).toBe(false);

      // A second process opens the folder itself (no server holds it).
      const migrate = spawn(process.execPath, ['--import', 'tsx', 'apps/platform/src/cli.ts', 'migrate'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      migrate.stdout.on('data', (d) => (stdout += d));
      expect(await new Promise((resolve) => migrate.on('close', resolve))).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ migrated: true, driver: 'pglite' });
    },
    SLOW,
  );
});

describe('reusing the docs build (scripts/ensure-docs-build.mjs)', () => {
  /** A repository-shaped tree with a few sources and a build stamped from them. */
  function fixture(): string {
    const root = mkdtempSync(join(temp, 'docs-'));
    const write = (path: string, text: string) => {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write('apps/docs/docs/intro.md', '# Intro\n');
    write('apps/docs/static/img/logo.svg', '<svg/>');
    write('apps/docs/docusaurus.config.ts', 'export default {};\n');
    write('packages/contracts/src/errors.ts', 'export const ERROR_CODES = {};\n');
    write('packages/contracts/src/states/onboarding.ts', 'export const machines = [];\n');
    write('apps/platform/src/server.ts', 'export {};\n');
    write('apps/docs/build/index.html', '<html></html>');
    write('apps/docs/build/.build-stamp.json', JSON.stringify({ sourcesHash: sourcesHash(root) }));
    return root;
  }

  it('reuses it after the OpenAPI documents are generated into static/, and after a fresh clone', () => {
    const root = fixture();
    expect(isBuildFresh(root)).toBe(true);
    // What the build itself does to the sources' folders: generated files, newer folder times.
    mkdirSync(join(root, 'apps/docs/static/openapi'));
    writeFileSync(join(root, 'apps/docs/static/openapi/partner.json'), '{"openapi":"3.1.0"}');
    mkdirSync(join(root, 'apps/docs/src/generated'), { recursive: true });
    writeFileSync(join(root, 'apps/docs/src/generated/contract-data.json'), '{}');
    expect(isBuildFresh(root)).toBe(true);
    // A clone, a checkout or a copy: every file newer than the build, none changed.
    const clone = join(temp, `clone-${Date.now()}`);
    cpSync(root, clone, { recursive: true });
    const later = new Date(Date.now() + 60_000);
    for (const f of ['apps/docs/docs/intro.md', 'packages/contracts/src/errors.ts', 'apps/docs/static']) {
      utimesSync(join(clone, f), later, later);
    }
    expect(isBuildFresh(clone)).toBe(true);
    // Files that do not make the site: another platform module, a contracts test.
    writeFileSync(join(root, 'apps/platform/src/server.ts'), 'export const changed = 1;\n');
    writeFileSync(join(root, 'packages/contracts/src/errors.test.ts'), 'test\n');
    expect(isBuildFresh(root)).toBe(true);
  });

  it('rebuilds when a source changes, is added or is removed, or when there is no build', () => {
    const cases: [string, (root: string) => void][] = [
      ['a guide edited', (r) => writeFileSync(join(r, 'apps/docs/docs/intro.md'), '# Intro!\n')],
      ['a contract edited', (r) => writeFileSync(join(r, 'packages/contracts/src/errors.ts'), '//\n')],
      [
        'a state machine edited',
        (r) => writeFileSync(join(r, 'packages/contracts/src/states/onboarding.ts'), '//\n'),
      ],
      ['a guide added', (r) => writeFileSync(join(r, 'apps/docs/docs/more.md'), '# More\n')],
      ['an image removed', (r) => rmSync(join(r, 'apps/docs/static/img/logo.svg'))],
      [
        'a guide renamed',
        (r) => renameSync(join(r, 'apps/docs/docs/intro.md'), join(r, 'apps/docs/docs/start.md')),
      ],
      ['no build', (r) => rmSync(join(r, 'apps/docs/build/index.html'))],
      [
        'an old stamp (times, no hash)',
        (r) => writeFileSync(join(r, 'apps/docs/build/.build-stamp.json'), '{"sourcesMtime":1}'),
      ],
    ];
    for (const [what, change] of cases) {
      const root = fixture();
      change(root);
      expect([what, isBuildFresh(root)]).toEqual([what, false]);
    }
  });
});
