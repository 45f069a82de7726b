import { readFileSync } from 'node:fs';
import { ConfigError } from './config.ts';
import { DataDirLockedError } from './db/lock.ts';
import { ApiError } from './http/errors.ts';
import { CliError, UsageError } from './cli/errors.ts';

const USAGE = `Usage: stream-platform <command> [options]

Commands:
  serve                   migrate, then serve the platform on PORT (default 8080)
  migrate                 apply pending database migrations
  partners create         register a partner; prints its credentials once
  partners list           list partners, without secrets (except the sandbox partners')
  partners rotate-secret  replace a partner's client and/or webhook secret
  partners go-live        move a certified partner from sandbox to live
  partners set-scopes     set the Partner API scopes of a partner's root client
  keys rotate             sign Partner API tokens with a new key from now on
  orders show <id>        an order and its timeline (every webhook, status change and call)
  events list|enable|disable|status
                          which event providers hear a location's orders; their circuits
  menus publish <id>      pull a location's catalog and publish its menus now
  partners menu-settings  how a DSP takes its menus (v2 flag, nesting, price platform)
  companies import|grant|order-status
                          hosted APIs: import a company's stores and menus; let a partner call
                          them; move a hosted order to a status
  certify pos|dsp|events  certify a partner's implementation against the contract (no database needed)
Run "stream-platform <command> --help" for a command's options; "stream-platform --version"
prints the platform's version.

Environment: PORT, HOST, DATA_DIR (default ./.data), DATABASE_URL (PostgreSQL; default embedded
PGlite in DATA_DIR), PUBLIC_URL, ENCRYPTION_KEY, LOG_LEVEL.
While a server runs on DATA_DIR, commands go through its loopback admin endpoint.
Output is JSON on stdout. Exit codes: 0 done, 1 failed, 2 bad arguments.`;

type Command = (args: string[]) => Promise<void>;
/** Loaded on demand: `partners` needs neither the HTTP server nor its capabilities. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./cli/serve.ts')).serve,
  migrate: async () => (await import('./cli/serve.ts')).runMigrate,
  partners: async () => (await import('./cli/partners.ts')).partners,
  keys: async () => (await import('./cli/keys.ts')).keys,
  orders: async () => (await import('./cli/orders.ts')).orders,
  events: async () => (await import('./cli/events.ts')).events,
  menus: async () => (await import('./cli/menus.ts')).menus,
  companies: async () => (await import('./cli/companies.ts')).companies,
  certify: async () => (await import('./cli/certify.ts')).certify,
};

/** The platform's version: apps/platform/package.json. */
export function platformVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export async function main([command, ...rest]: string[]): Promise<void> {
  if (command === '--version' || command === '-v' || command === 'version') {
    console.log(platformVersion());
    return;
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return;
  }
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!load) throw new UsageError(`Unknown command "${command}".`, USAGE);
  return (await load())(rest);
}

/** Exit code and message for a failure: 2 for how the command was called, 1 for anything else. */
function report(err: unknown): number {
  const say = (message: string) => console.error(`stream-platform: ${message}`);
  if (err instanceof UsageError) {
    say(`${err.message}\n\n${err.usage}`);
    return 2;
  }
  if (err instanceof ApiError) {
    // From the admin endpoint or the partner service: a 400 means the arguments were rejected.
    say(err.message);
    return err.status === 400 ? 2 : 1;
  }
  if (err instanceof CliError || err instanceof ConfigError || err instanceof DataDirLockedError) {
    say(err.message);
    return 1;
  }
  console.error(err);
  return 1;
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.exitCode = report(err);
});
