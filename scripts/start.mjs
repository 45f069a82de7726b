#!/usr/bin/env node
// `npm start`: builds the documentation site when it is missing or stale, then runs
// `stream-platform serve` in this same process. One process from start to stop, so the SIGTERM a
// supervisor, a container runtime or npm itself sends reaches the server, which drains and exits
// (two processes behind `sh -c "a && b"` left the server running, holding DATA_DIR's lock).
// Arguments after `npm start --` go to `serve` (e.g. `npm start -- --help`).
// SKIP_DOCS_BUILD=1 skips the build step (tests; the platform then serves whatever build exists).
import { register } from 'tsx/esm/api';
import { ensureDocsBuild, stopDocsBuild } from './ensure-docs-build.mjs';

const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 };

if (process.env.SKIP_DOCS_BUILD !== '1') {
  // A signal while building: stop the build (its child processes too) and exit.
  let stoppedBy;
  const stop = (signal) => {
    stoppedBy = signal;
    stopDocsBuild(signal);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    await ensureDocsBuild();
  } catch (err) {
    if (!stoppedBy) {
      console.error(`docs: ${err.message}`);
      process.exit(1);
    }
  }
  if (stoppedBy) process.exit(SIGNAL_EXIT[stoppedBy]);
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
}

// What `stream-platform serve` runs, in this process (it reads its command from process.argv).
process.argv.splice(2, process.argv.length, 'serve', ...process.argv.slice(2));
register();
await import('../apps/platform/src/cli.ts');
