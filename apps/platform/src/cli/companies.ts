import { readFileSync } from 'node:fs';
import { loadConfig } from '../config.ts';
import { printJson } from './args.ts';
import { withCommands } from './backend.ts';
import { CliError, UsageError } from './errors.ts';

export const COMPANIES_USAGE = `Usage:
  stream-platform companies import FILE
      Creates or updates a company, its stores and their menus from a JSON company file (the format
      is in the Menu API guide; the demo company is one). Stores and menus are matched by id and by
      name, so importing the same file again changes nothing but what was changed since through the
      APIs: the file's menus win; an order type's estimatedTime and who set it (the store's live
      setting) are kept, as is the system message. All or nothing.
  stream-platform companies grant COMPANY_ID PARTNER
      Lets a partner (id or slug) call the hosted Menu, Order and Store APIs for the company's
      stores, and lets its API client ask for the menu, orders and stores scopes.
  stream-platform companies order-status ORDER_ID STATUS
      Moves an order placed through the Order API as its store would: ready, deliveryStarted,
      deliveryArriving, deliveryDelivered, completed, unknown (the moves of the Order API guide).`;

export async function companies([sub, ...args]: string[]): Promise<void> {
  if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h')
    return console.log(COMPANIES_USAGE);
  if (args.some((a) => a === '--help' || a === '-h')) return console.log(COMPANIES_USAGE);
  if (sub === 'import') {
    if (args.length !== 1) throw new UsageError('companies import needs one file.', COMPANIES_USAGE);
    let file: unknown;
    try {
      file = JSON.parse(readFileSync(args[0]!, 'utf8'));
    } catch (err) {
      throw new CliError(`Cannot read ${args[0]} as JSON: ${(err as Error).message}`);
    }
    return printJson(await withCommands(loadConfig(), (c) => c.importCompany(file)));
  }
  if (sub === 'grant') {
    const id = Number(args[0]);
    if (args.length !== 2 || !Number.isInteger(id) || id < 1) {
      throw new UsageError(
        'companies grant needs a company id (a whole number) and a partner.',
        COMPANIES_USAGE,
      );
    }
    return printJson(await withCommands(loadConfig(), (c) => c.grantCompany(id, args[1]!)));
  }
  if (sub === 'order-status') {
    const id = Number(args[0]);
    if (args.length !== 2 || !Number.isInteger(id) || id < 1) {
      throw new UsageError(
        'companies order-status needs an order id (a whole number) and a status.',
        COMPANIES_USAGE,
      );
    }
    return printJson(await withCommands(loadConfig(), (c) => c.moveHostedOrder(id, args[1]!)));
  }
  throw new UsageError(`companies has no command "${sub}": import, grant, order-status.`, COMPANIES_USAGE);
}
