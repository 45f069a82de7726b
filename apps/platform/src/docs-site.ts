import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `scripts/ensure-docs-build.mjs` (run by `npm start`) leaves the built documentation site. */
export const DOCS_BUILD_DIR = fileURLToPath(new URL('../../docs/build', import.meta.url));

/**
 * The site file a URL path names: the file itself, else `<path>/index.html` (Docusaurus writes
 * `/docs/intro` as `docs/intro/index.html`), else `<path>.html`. Undefined when there is none or the
 * path tries to leave the build folder.
 */
export function siteFile(root: string, url: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(url.split(/[?#]/, 1)[0] ?? '/');
  } catch {
    return undefined;
  }
  if (path.includes('\0') || !path.startsWith('/')) return undefined;
  const candidates = path.endsWith('/')
    ? [`${path}index.html`]
    : [path, `${path}/index.html`, `${path}.html`];
  for (const candidate of candidates) {
    const full = resolve(root, `.${candidate}`);
    if (!full.startsWith(root + sep)) return undefined;
    try {
      if (statSync(full).isFile())
        return full
          .slice(root.length + 1)
          .split(sep)
          .join('/');
    } catch {
      // not this candidate
    }
  }
  return undefined;
}

/** A browser navigating (it asks for HTML); API clients sending `*\/*` or JSON get the JSON 404. */
function wantsHtml(req: FastifyRequest): boolean {
  return /\btext\/html\b/.test(req.headers.accept ?? '');
}

/**
 * Serves the built documentation site at `/`. Registered last in `buildApp`: every API route is more
 * specific than this GET wildcard, so API paths keep their handlers. Unknown GET paths answer the
 * site's 404 page to browsers and the usual JSON 404 to everyone else. Answers false (and serves
 * nothing) when the site has not been built.
 */
export async function registerDocsSite(app: FastifyInstance, opts: { root?: string } = {}): Promise<boolean> {
  const root = resolve(opts.root ?? DOCS_BUILD_DIR);
  if (!existsSync(join(root, 'index.html'))) {
    app.log.info(
      { root },
      'documentation site not built; run `node scripts/ensure-docs-build.mjs` to serve it',
    );
    return false;
  }
  await app.register(async (site) => {
    // preCompressed: the build step wrote .br and .gz beside each text file.
    await site.register(fastifyStatic, { root, serve: false, index: false, preCompressed: true });
    site.get('/*', { schema: { hide: true } }, async (req: FastifyRequest, reply: FastifyReply) => {
      const file = siteFile(root, req.url);
      if (file) {
        // Hashed bundles never change; pages must be revalidated so a rebuild shows at once.
        const cache = file.startsWith('assets/') ? { maxAge: '365d', immutable: true } : { maxAge: 0 };
        return reply.sendFile(file, cache);
      }
      if (wantsHtml(req)) {
        const page = await readFile(join(root, '404.html')).catch(() => undefined);
        if (page)
          return reply
            .code(404)
            .type('text/html; charset=utf-8')
            .header('cache-control', 'no-cache')
            .send(page);
      }
      return reply.callNotFound();
    });
  });
  return true;
}
