import { mailFolder } from '../hosted/stores/email.ts';
import { loadConfig } from '../config.ts';
import { startPlatform, type RunningPlatform } from '../server.ts';
import { parseFlags, printJson } from './args.ts';
import { withCommands } from './backend.ts';

export const SERVE_USAGE = `Usage:
  stream-platform serve
      Applies pending migrations, then serves HTTP on PORT (default 8080, HOST default 0.0.0.0)
      and works the outbox. SIGTERM or SIGINT drains in-flight requests and jobs, then exits 0;
      a second signal exits at once (code 1).
  stream-platform migrate
      Applies pending migrations (through the running server if one holds DATA_DIR).`;

/**
 * Serves until SIGTERM/SIGINT, then drains (requests, jobs), closes the database and exits 0.
 * The handlers are in place before the database opens: a signal during start-up stops the
 * platform as soon as it has started (a second signal exits at once), never leaving the folder locked.
 */
export async function serve(args: string[]): Promise<void> {
  if (!parseFlags(args, [], SERVE_USAGE)) return console.log(SERVE_USAGE);
  let platform: RunningPlatform | undefined = undefined; // set once started
  let draining: NodeJS.Signals | undefined;
  const stop = (running: RunningPlatform, signal: NodeJS.Signals) => {
    const log = running.app.log;
    log.info({ signal }, 'draining');
    running.stop().then(
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
  const shutdown = (signal: NodeJS.Signals) => {
    if (draining) {
      platform?.app.log.warn({ signal }, 'second signal: exiting without draining');
      process.exit(1);
    }
    draining = signal;
    if (platform) stop(platform, signal);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  const config = loadConfig();
  platform = await startPlatform(config);
  platform.app.log.info({ url: platform.url }, 'stream platform listening');
  if (config.databaseUrl && !process.env.PUBLIC_URL) {
    // Tokens name their issuer (PUBLIC_URL): processes on other ports would refuse each other's.
    platform.app.log.warn(
      { publicUrl: platform.app.ctx.config.publicUrl },
      'PUBLIC_URL is not set: tokens are issued for this port only. Give every process sharing this ' +
        "database the same PUBLIC_URL (and ENCRYPTION_KEY), or they reject each other's tokens.",
    );
  }
  if (!config.mail?.smtpUrl) {
    platform.app.log.warn(
      { mailDir: mailFolder(platform.app.ctx) },
      'SMTP_URL is not set: e-mail the Store API sends is written as .eml files to this folder, not sent.',
    );
  }
  if (draining) stop(platform, draining); // signalled while starting
}

export async function runMigrate(args: string[]): Promise<void> {
  if (!parseFlags(args, [], SERVE_USAGE)) return console.log(SERVE_USAGE);
  printJson(await withCommands(loadConfig(), (c) => c.migrate()));
}
