import { ConfigError, loadConfig } from './config.ts';
import { DataDirLockedError } from './db/lock.ts';
import { openDatabase } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { startPlatform } from './server.ts';

const USAGE = `Usage: stream-platform <command>

Commands:
  serve                 migrate, then serve the platform (PORT, default 8080)
  migrate               apply pending database migrations

Environment: PORT, DATA_DIR (default ./.data), DATABASE_URL (PostgreSQL; default embedded PGlite),
PUBLIC_URL, ENCRYPTION_KEY, LOG_LEVEL. See the README.`;

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {}

async function serve(): Promise<void> {
  const config = loadConfig();
  const platform = await startPlatform(config);
  platform.app.log.info({ url: platform.url }, 'stream platform listening');
  const shutdown = (signal: string) => {
    platform.app.log.info({ signal }, 'draining');
    platform.stop().then(
      () => process.exit(0),
      (err) => {
        platform.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

async function runMigrate(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(database);
    console.log(JSON.stringify({ migrated: true, driver: database.driver }));
  } finally {
    await database.close();
  }
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve();
    case 'migrate':
      return runMigrate();
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return;
    default:
      throw new UsageError(`Unknown command "${command}"${rest.length ? '' : ''}.`);
  }
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError) {
    console.error(`stream-platform: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    console.error(`stream-platform: ${err.message}`);
    process.exit(1);
  }
  console.error(err);
  process.exit(1);
});
