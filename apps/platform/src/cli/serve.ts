import { loadConfig } from '../config.ts';
import { startPlatform } from '../server.ts';
import { parseFlags, printJson } from './args.ts';
import { withCommands } from './backend.ts';

export const SERVE_USAGE = `Usage:
  stream-platform serve
      Applies pending migrations, then serves HTTP on PORT (default 8080, HOST default 0.0.0.0)
      and works the outbox. SIGTERM or SIGINT drains in-flight requests and jobs, then exits 0;
      a second signal exits at once (code 1).
  stream-platform migrate
      Applies pending migrations (through the running server if one holds DATA_DIR).`;

/** Serves until SIGTERM/SIGINT, then drains (requests, jobs), closes the database and exits 0. */
export async function serve(args: string[]): Promise<void> {
  if (!parseFlags(args, [], SERVE_USAGE)) return console.log(SERVE_USAGE);
  const platform = await startPlatform(loadConfig());
  const log = platform.app.log;
  log.info({ url: platform.url }, 'stream platform listening');
  let draining = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (draining) {
      log.warn({ signal }, 'second signal: exiting without draining');
      process.exit(1);
    }
    draining = true;
    log.info({ signal }, 'draining');
    platform.stop().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

export async function runMigrate(args: string[]): Promise<void> {
  if (!parseFlags(args, [], SERVE_USAGE)) return console.log(SERVE_USAGE);
  printJson(await withCommands(loadConfig(), (c) => c.migrate()));
}
