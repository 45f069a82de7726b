#!/usr/bin/env node
// `npm start` (scripts/start.mjs) runs this first. It builds the documentation site (the OpenAPI
// documents from the contracts, then `docusaurus build`) only when apps/docs/build is missing or was
// made from other sources (a content hash of them is kept in build/.build-stamp.json),
// printing progress; later starts reuse the build. `--force` rebuilds anyway.
// The browser tests import `ensureDocsBuild` so a test run reuses a fresh build too.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DOCS_DIR = join(ROOT, 'apps/docs');
export const BUILD_DIR = join(DOCS_DIR, 'build');
const LOCK = join(DOCS_DIR, '.build-lock');

/**
 * Everything the built site is made from: its own sources and the contracts it documents (with
 * the state machines it draws). `filter` narrows a folder to the files that matter.
 */
const SOURCES = [
  { path: 'apps/docs/docs' },
  { path: 'apps/docs/src' },
  { path: 'apps/docs/static' },
  { path: 'apps/docs/plugins' },
  { path: 'apps/docs/docusaurus.config.ts' },
  { path: 'apps/docs/sidebars.ts' },
  { path: 'apps/docs/package.json' },
  { path: 'packages/contracts/src', filter: (file) => !file.endsWith('.test.ts') },
];
/** Generated from the sources above by the build itself (`npm run openapi`, the contract-data plugin). */
const GENERATED = ['apps/docs/static/openapi', 'apps/docs/src/generated'];

/** The files of `path` (relative to `root`), sorted, without generated folders and node_modules. */
function filesOf(root, path, filter = () => true) {
  const abs = join(root, path);
  if (!existsSync(abs) || GENERATED.includes(path)) return [];
  if (!statSync(abs).isDirectory()) return filter(path) ? [path] : [];
  return readdirSync(abs)
    .filter((entry) => entry !== 'node_modules')
    .sort()
    .flatMap((entry) => filesOf(root, `${path}/${entry}`, filter));
}

/**
 * A SHA-256 of the site's inputs: every source file's path and content. Timestamps play no part, so
 * generating the OpenAPI documents into `static/` (which touches that folder), a fresh clone or a
 * `touch` do not make the build stale; an edit, a new file or a deleted one do.
 */
export function sourcesHash(root = ROOT) {
  const hash = createHash('sha256');
  for (const { path, filter } of SOURCES) {
    for (const file of filesOf(root, path, filter)) {
      const content = readFileSync(join(root, file));
      hash.update(`${file}\0${content.length}\0`).update(content);
    }
  }
  return hash.digest('hex');
}

/** True when the build exists and was made from the sources as they are now. */
export function isBuildFresh(root = ROOT) {
  const build = join(root, 'apps/docs/build');
  const stamp = join(build, '.build-stamp.json');
  if (!existsSync(stamp) || !existsSync(join(build, 'index.html'))) return false;
  try {
    return JSON.parse(readFileSync(stamp, 'utf8')).sourcesHash === sourcesHash(root);
  } catch {
    return false;
  }
}

/** The build's child processes running now, for {@link stopDocsBuild}. */
const children = new Set();
let stopRequested = false;

class BuildStopped extends Error {}
/** Throws once a stop was requested: a stopped build is never swapped in, whatever its steps answered. */
function checkStopped() {
  if (stopRequested) throw new BuildStopped('the build was stopped');
}

/**
 * Stops a build in progress (a signal reached `npm start`): its commands get `signal` and the build
 * fails at once, leaving the previous build in place (docusaurus exits 0 on SIGTERM: its exit code
 * cannot tell).
 */
export function stopDocsBuild(signal = 'SIGTERM') {
  stopRequested = true;
  for (const child of children) child.kill(signal);
}

/** Runs a command; with `stdio: 'pipe'` its output goes into `output` (for a test's error message). */
function run(cmd, args, { output, ...opts }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: 'inherit', ...opts });
    children.add(child);
    child.on('exit', () => children.delete(child));
    child.stdout?.on('data', (chunk) => output?.push(String(chunk)));
    child.stderr?.on('data', (chunk) => output?.push(String(chunk)));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (stopRequested) reject(new BuildStopped('the build was stopped'));
      else if (code === 0) resolve();
      else reject(new Error(`${[cmd, ...args].join(' ')} failed (${code ?? signal})`));
    });
  });
}

/** `npm run openapi`: the OpenAPI documents from the contracts, into apps/docs/static/openapi. */
const OPENAPI_WRITER = join(ROOT, 'packages/contracts/src/openapi/write.ts');

const COMPRESSIBLE = /\.(js|css|html|json|svg|txt|xml)$/;

/**
 * Writes `.br` and `.gz` beside every text file of the build: the platform serves them to browsers
 * that accept them (@fastify/static `preCompressed`), without compressing on every request.
 */
async function precompress(dir) {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => COMPRESSIBLE.test(f));
  const br = promisify(brotliCompress);
  const gz = promisify(gzip);
  for (const file of files) {
    checkStopped();
    const data = readFileSync(join(dir, file));
    if (data.length < 1024) continue;
    const [b, g] = await Promise.all([
      br(data, { params: { [zlib.BROTLI_PARAM_QUALITY]: 10, [zlib.BROTLI_PARAM_SIZE_HINT]: data.length } }),
      gz(data, { level: 9 }),
    ]);
    writeFileSync(join(dir, `${file}.br`), b);
    writeFileSync(join(dir, `${file}.gz`), g);
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One build at a time across processes (parallel test files, a start during a test run). */
async function withLock(fn, log) {
  for (let waited = false; ; ) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let owner = 0;
      try {
        owner = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
      } catch {
        // the owner has not written its pid yet
      }
      if (owner && !alive(owner)) {
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      if (!waited) log(`docs: another process (pid ${owner || '?'}) is building the site; waiting for it`);
      waited = true;
      await sleep(500);
    }
  }
  writeFileSync(join(LOCK, 'pid'), String(process.pid));
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * Builds the site unless a fresh build exists. Answers whether it built and how long it took.
 * @param {{ force?: boolean, log?: (line: string) => void, stdio?: 'inherit' | 'pipe', output?: string[] }} [opts]
 */
export async function ensureDocsBuild(opts = {}) {
  const log = opts.log ?? ((line) => console.log(line));
  const stdio = opts.stdio ?? 'inherit';
  if (!opts.force && isBuildFresh()) {
    log(`docs: reusing the build in ${relative(process.cwd(), BUILD_DIR) || '.'} (no source changed)`);
    return { built: false, ms: 0 };
  }
  return withLock(async () => {
    if (!opts.force && isBuildFresh()) return { built: false, ms: 0 }; // built while we waited
    const started = Date.now();
    const hash = sourcesHash();
    const reason = existsSync(join(BUILD_DIR, 'index.html')) ? 'sources changed' : 'no build yet';
    log(`docs: building the documentation site (${reason})`);
    log('docs: [1/3] generating the OpenAPI documents (npm run openapi)');
    await run(process.execPath, ['--import', 'tsx', OPENAPI_WRITER], {
      cwd: ROOT,
      stdio,
      output: opts.output,
    });
    log('docs: [2/3] docusaurus build (a minute or more)');
    // Into a folder of its own, swapped in when complete: a running platform keeps serving the old
    // build meanwhile instead of a half-written one.
    const next = join(DOCS_DIR, '.docusaurus/build-next'); // git-ignored, same file system as the build
    rmSync(next, { recursive: true, force: true });
    const docusaurus = join(ROOT, 'node_modules/@docusaurus/core/bin/docusaurus.mjs');
    await run(process.execPath, [docusaurus, 'build', '--out-dir', next], {
      cwd: DOCS_DIR,
      stdio,
      output: opts.output,
      env: { ...process.env, NO_UPDATE_NOTIFIER: '1' },
    });
    log('docs: [3/3] compressing the build (brotli, gzip)');
    await precompress(next);
    checkStopped();
    const ms = Date.now() - started;
    const stamp = { sourcesHash: hash, builtAt: new Date().toISOString(), buildMs: ms };
    writeFileSync(join(next, '.build-stamp.json'), JSON.stringify(stamp) + '\n');
    const old = join(DOCS_DIR, '.docusaurus/build-old');
    rmSync(old, { recursive: true, force: true });
    if (existsSync(BUILD_DIR)) renameSync(BUILD_DIR, old);
    renameSync(next, BUILD_DIR);
    rmSync(old, { recursive: true, force: true });
    log(`docs: built in ${(ms / 1000).toFixed(1)} s`);
    return { built: true, ms };
  }, log);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  ensureDocsBuild({ force: process.argv.includes('--force') }).catch((err) => {
    console.error(`docs: ${err.message}`);
    process.exit(1);
  });
}
