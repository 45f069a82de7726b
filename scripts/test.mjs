#!/usr/bin/env node
// `npm test`: static checks, then the whole vitest suite. Browser tests need Debian's chromium:
// without it they skip locally (and this script says so last), and fail under CI=true.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const run = (label, cmd, args) => {
  console.log(`\n> ${label}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
  if (r.status !== 0) {
    console.error(`\n${label} failed (exit ${r.status ?? r.signal}).`);
    process.exit(r.status ?? 1);
  }
};

const only = process.argv.slice(2);
if (only.length === 0) {
  // The docs site imports the generated OpenAPI documents: generate them before typechecking.
  run('openapi', 'npm', ['run', '--silent', 'openapi']);
  // Three TypeScript projects: Node code, the docs site (DOM, JSX), its browser tests.
  for (const project of ['.', 'apps/docs', 'apps/docs/test'])
    run(`typecheck ${project}`, 'npx', ['tsc', '-p', project]);
  run('lint', 'npx', ['eslint', '.', '--max-warnings=0']);
  run('format', 'npx', ['prettier', '--check', '.']);
}
run('tests', 'npx', ['vitest', 'run', ...only]);

if (!existsSync('/usr/bin/chromium')) {
  if (process.env.CI === 'true') {
    console.error('browser tests failed: /usr/bin/chromium is missing (CI must install it).');
    process.exit(1);
  }
  console.log('\nbrowser tests skipped: apt-get install chromium');
}
