import { loadConfig } from '../config.ts';
import { parseFlags, printJson } from './args.ts';
import { withCommands } from './backend.ts';
import { UsageError } from './errors.ts';

export const KEYS_USAGE = `Usage:
  stream-platform keys rotate
      Makes a new signing key for Partner API tokens. New tokens are signed with it at once;
      tokens signed with the previous key stay valid until they expire (it stays in the JWKS).`;

export async function keys([sub, ...args]: string[]): Promise<void> {
  if (sub === 'help' || sub === '--help' || sub === '-h') return console.log(KEYS_USAGE);
  if (sub !== 'rotate') {
    const what = sub === undefined ? 'needs a command' : `has no command "${sub}"`;
    throw new UsageError(`keys ${what}: rotate.`, KEYS_USAGE);
  }
  if (!parseFlags(args, [], KEYS_USAGE)) return console.log(KEYS_USAGE);
  printJson(await withCommands(loadConfig(), (c) => c.rotateSigningKey()));
}
