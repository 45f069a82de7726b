import { loadConfig } from '../config.ts';
import { printJson } from './args.ts';
import { withCommands } from './backend.ts';
import { UsageError } from './errors.ts';

export const MENUS_USAGE = `Usage:
  stream-platform menus publish LOCATION_ID
      Pulls the catalog of an org location (loc_...) from its POS and publishes its menu to every
      bound DSP store, through the outbox. The outcome is in the Partner API's publications and
      reaches the POS as menu.publish_success or menu.publish_failure.`;

export async function menus([sub, ...args]: string[]): Promise<void> {
  if (sub === 'help' || sub === '--help' || sub === '-h') return console.log(MENUS_USAGE);
  if (sub !== 'publish') {
    const what = sub === undefined ? 'needs a command' : `has no command "${sub}"`;
    throw new UsageError(`menus ${what}: publish.`, MENUS_USAGE);
  }
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) return console.log(MENUS_USAGE);
  if (args.length !== 1 || args[0]!.startsWith('-'))
    throw new UsageError('menus publish needs one location id.', MENUS_USAGE);
  printJson(await withCommands(loadConfig(), (c) => c.publishMenus(args[0]!)));
}
