import { loadConfig } from '../config.ts';
import { printJson } from './args.ts';
import { withCommands } from './backend.ts';
import { UsageError } from './errors.ts';

export const ORDERS_USAGE = `Usage:
  stream-platform orders show ORDER_ID
      Prints the order (ord_...) and its timeline as JSON: every webhook received about it, every
      change of status, and every call made to the POS or DSP with each attempt.`;

export async function orders([sub, ...args]: string[]): Promise<void> {
  if (sub === 'help' || sub === '--help' || sub === '-h') return console.log(ORDERS_USAGE);
  if (sub !== 'show') {
    const what = sub === undefined ? 'needs a command' : `has no command "${sub}"`;
    throw new UsageError(`orders ${what}: show.`, ORDERS_USAGE);
  }
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) return console.log(ORDERS_USAGE);
  if (args.length !== 1 || args[0]!.startsWith('-'))
    throw new UsageError('orders show needs one order id.', ORDERS_USAGE);
  printJson(await withCommands(loadConfig(), (c) => c.showOrder(args[0]!)));
}
