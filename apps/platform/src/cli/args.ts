import { parseArgs } from 'node:util';
import { UsageError } from './errors.ts';

type StringOptions<K extends string> = Record<K, { type: 'string' }>;

/**
 * Strict `util.parseArgs` over string flags (plus `--help`): an unknown flag, a missing value or a
 * stray positional becomes a UsageError naming it. Answers undefined when help was asked for.
 */
export function parseFlags<K extends string>(
  args: string[],
  names: readonly K[],
  usage: string,
): Partial<Record<K, string>> | undefined {
  const options = Object.fromEntries(names.map((n) => [n, { type: 'string' }])) as StringOptions<K>;
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean' as const, short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    // Node's messages name the flag: "Unknown option '--colour'", "Unexpected argument 'x'".
    throw new UsageError((err as Error).message.replace(/([^.])$/, '$1.'), usage);
  }
  if (values.help) return undefined;
  return values as Partial<Record<K, string>>;
}

/** The flags a command cannot do without, checked before anything else. */
export function requireFlags<K extends string>(
  values: Partial<Record<K, string>>,
  names: readonly K[],
  command: string,
  usage: string,
): void {
  const missing = names.filter((n) => values[n] === undefined);
  if (missing.length) {
    throw new UsageError(`${command} needs ${missing.map((n) => `--${n}`).join(', ')}.`, usage);
  }
}

/** Prints a command's result: JSON on stdout, nothing else there. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
