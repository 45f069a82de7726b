import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { brotliCompressSync } from 'node:zlib';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../test/http.ts';
import { registerDocsSite, siteFile } from './docs-site.ts';
import { defineCapability, registerApi } from './http/api.ts';
import { createHttpServer } from './http/app.ts';

/** A miniature Docusaurus build: the layout the real one has, without building it. */
function fakeBuild(): string {
  const root = mkdtempSync(join(tmpdir(), 'docs-build-'));
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('index.html', '<h1>home</h1>');
  write('404.html', '<h1>Page Not Found</h1>');
  write('docs/intro/index.html', '<h1>intro</h1>');
  write('api/index.html', '<h1>Partner API</h1>');
  write('assets/js/main.0123abcd.js', 'console.log(1)');
  writeFileSync(join(root, 'assets/js/main.0123abcd.js.br'), brotliCompressSync('console.log(1)'));
  write('openapi/partner-api.json', '{"openapi":"3.1.0"}');
  return root;
}

describe('documentation site serving', () => {
  let root: string;
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    root = fakeBuild();
    app = createHttpServer({ logger: false, bodyLimit: 1024 });
    app.get('/health', async () => ({ ok: true }));
    await registerApi(app, 'hr-menu', [
      defineCapability('/Menus', (scope) => {
        scope.get('/:id', async () => ({ data: {} }));
      }),
    ]);
    expect(await registerDocsSite(app, { root })).toBe(true);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await app?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves pages at their clean URLs, with and without a trailing slash', async () => {
    for (const [path, heading] of [
      ['/', 'home'],
      ['/docs/intro', 'intro'],
      ['/docs/intro/', 'intro'],
      ['/api/', 'Partner API'],
      ['/api', 'Partner API'],
    ]) {
      const res = await call('GET', url + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.text).toContain(heading);
    }
  });

  it('lets hashed assets be cached for good and pages never', async () => {
    const asset = await call('GET', `${url}/assets/js/main.0123abcd.js`);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    const page = await call('GET', `${url}/docs/intro`);
    expect(page.headers.get('cache-control')).toContain('max-age=0');
  });

  it('serves the precompressed copy to browsers that accept it', async () => {
    const br = await fetch(`${url}/assets/js/main.0123abcd.js`, { headers: { 'accept-encoding': 'br' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(await br.text()).toBe('console.log(1)');
    const plain = await fetch(`${url}/assets/js/main.0123abcd.js`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe('console.log(1)');
  });

  it('serves the OpenAPI documents for download', async () => {
    const res = await call('GET', `${url}/openapi/partner-api.json`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ openapi: '3.1.0' });
  });

  it('keeps API routes and their JSON answers', async () => {
    expect((await call('GET', `${url}/health`)).body).toEqual({ ok: true });
    const missing = await call('GET', `${url}/no/such/thing`, { headers: { accept: 'application/json' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    const anyType = await call('GET', `${url}/no/such/thing`);
    expect(anyType.body.error.code).toBe('not_found');
    const post = await call('POST', `${url}/docs/intro`, { body: {}, headers: { accept: 'text/html' } });
    expect(post.status).toBe(404);
    expect(post.body.error.code).toBe('not_found');
  });

  it("answers an unknown API path in that API's envelope, though the site's wildcard caught it", async () => {
    const res = await call('GET', `${url}/Menus/1/nothing`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      data: null,
      message: 'There is no GET /Menus/1/nothing route.',
      messagesDetails: [
        { id: 'not_found', message: 'There is no GET /Menus/1/nothing route.', messageType: 'ERROR' },
      ],
    });
    // The site's wildcard is what caught it: a browser gets the site's 404 page.
    const page = await call('GET', `${url}/Menus/1/nothing`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('Page Not Found');
  });

  it('answers browsers the site 404 page for unknown paths', async () => {
    const res = await call('GET', `${url}/no/such/page`, {
      headers: { accept: 'text/html,application/xhtml+xml' },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('Page Not Found');
  });

  it('never leaves the build folder', async () => {
    for (const path of ['/../package.json', '/%2e%2e/%2e%2e/etc/passwd', '/docs/%E0%A4%A', '/a%00b']) {
      const res = await call('GET', url + path, { headers: { accept: 'application/json' } });
      expect([400, 404], path).toContain(res.status); // Fastify itself refuses a malformed escape with 400
      expect(res.body.error.code, path).toBeTruthy();
    }
    expect(siteFile(root, '/../../etc/passwd')).toBeUndefined();
    expect(siteFile(root, '/%2e%2e%2f%2e%2e%2fetc%2fpasswd')).toBeUndefined();
    expect(siteFile(root, '/docs/intro?x=1')).toBe('docs/intro/index.html');
  });

  it('serves nothing when the site is not built', async () => {
    const bare = createHttpServer({ logger: false, bodyLimit: 1024 });
    expect(await registerDocsSite(bare, { root: join(root, 'missing') })).toBe(false);
    await bare.close();
  });
});
