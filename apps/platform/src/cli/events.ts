import { loadConfig } from '../config.ts';
import { printJson } from './args.ts';
import { withCommands } from './backend.ts';
import { UsageError } from './errors.ts';

export const EVENTS_USAGE = `Usage:
  stream-platform events list LOCATION_ID
      The event providers of an org location (loc_...), enabled or not, each with its delivery state.
  stream-platform events enable LOCATION_ID PROVIDER
  stream-platform events disable LOCATION_ID PROVIDER
      Start or stop sending the location's order events to the event provider (slug or partner id).
  stream-platform events status
      Every event provider and its circuit: closed (delivering), open (paused until retry_at, nothing
      dropped) or half_open (probing), with the failure rate and the last error.`;

const ARITY: Record<string, number> = { list: 1, enable: 2, disable: 2, status: 0 };

export async function events([sub, ...args]: string[]): Promise<void> {
  if (sub === 'help' || sub === '--help' || sub === '-h') return console.log(EVENTS_USAGE);
  const arity = sub !== undefined && Object.hasOwn(ARITY, sub) ? ARITY[sub] : undefined;
  if (arity === undefined) {
    const what = sub === undefined ? 'needs a command' : `has no command "${sub}"`;
    throw new UsageError(`events ${what}: ${Object.keys(ARITY).join(', ')}.`, EVENTS_USAGE);
  }
  if (args.some((a) => a === '--help' || a === '-h')) return console.log(EVENTS_USAGE);
  if (args.length !== arity || args.some((a) => a.startsWith('-'))) {
    const needs = ['no arguments', 'a location id', 'a location id and a provider'][arity];
    throw new UsageError(`events ${sub} takes ${needs}.`, EVENTS_USAGE);
  }
  const [location, provider] = args as [string, string];
  printJson(
    await withCommands(
      loadConfig(),
      (c): Promise<unknown> =>
        sub === 'status'
          ? c.eventCircuits()
          : sub === 'list'
            ? c.eventProviders(location)
            : c.setEventProvider(location, provider, sub === 'enable'),
    ),
  );
}
