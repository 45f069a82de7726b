import { parseArgs } from 'node:util';
import { UsageError, httpUrl, wholeNumber } from './cli-args.ts';
import { ControlError, sandboxControl, type SandboxControl } from './control-client.ts';
import { SandboxError } from './http.ts';
import type { SandboxKind } from './options.ts';
import type { PlatformAnswer } from './send.ts';
import type { OrderBehavior } from './state.ts';

/**
 * `stream-sandbox <pos|dsp> <command>`: the control routes the guides use, from a shell. Each is a thin
 * wrapper over {@link sandboxControl} (the routes validate; nothing is checked twice), printing the
 * route's answer as JSON.
 */

export const CONTROL_USAGE = `Control commands (a running simulator, through its control routes /_sandbox/...; the answer as JSON):
  stream-sandbox pos order-behavior B    how the POS answers orders: the order_behavior switch (accept,
                                         accept_async, reject_stock, error_503, timeout, ...); prints the switches
  stream-sandbox pos order-status ID S   the POS sends Stream order.status.updated S (accepted, ready_for_pickup,
                                         completed, merchant_canceled) for its order ID (provider_id)
  stream-sandbox pos pause LOCATION      the POS sends location.status.updated inactive for its location;
                                         --minutes N or --until T (ISO time or epoch ms): until then
  stream-sandbox pos resume LOCATION     the POS sends location.status.updated active
  stream-sandbox dsp events              what the DSP was told (POST /stream-dsp/v1/event), oldest first;
                                         --order-id ID (the DSP's order id), --type T to filter
The commands that send a webhook print {status, body}, what Stream answered, and exit 1 when it is 4xx or 5xx.

Control options (environment variable in brackets: the guides' "Set up your shell" exports them):
  --url URL             the simulator [SANDBOX_POS_URL, SANDBOX_DSP_URL]
  --platform URL        or the platform it is mounted on ({platform}/sandbox/<pos|dsp>) [STREAM_URL]
  --client-id ID        its control credentials, HTTP Basic [SANDBOX_POS_CLIENT_ID, SANDBOX_DSP_CLIENT_ID]
  --client-secret S     [SANDBOX_POS_CLIENT_SECRET, SANDBOX_DSP_CLIENT_SECRET]`;

type Values = Partial<Record<string, string>>;
/** A command's output, and whether the platform refused the webhook it sent (exit 1). */
type Outcome = { print: unknown; refused?: boolean };

interface ControlCommand {
  kind: SandboxKind;
  /** Positional arguments, by name (all required). */
  args: string[];
  options?: string[];
  run(control: SandboxControl, args: string[], values: Values): Promise<Outcome>;
}

const answered = async (answer: Promise<PlatformAnswer>): Promise<Outcome> => {
  const got = await answer;
  return { print: got, refused: got.status >= 400 };
};

/** `--minutes N` or `--until T` (ISO 8601 or epoch ms) as the epoch ms `paused_until` takes; neither: until resumed. */
function pausedUntil(v: Values): number | undefined {
  if (v.minutes !== undefined && v.until !== undefined)
    throw new UsageError('Give --minutes or --until, not both.');
  const minutes = wholeNumber('--minutes', v.minutes);
  if (minutes !== undefined) return Date.now() + minutes * 60_000;
  if (v.until === undefined) return undefined;
  const at = /^\d+$/.test(v.until) ? Number(v.until) : Date.parse(v.until);
  if (Number.isNaN(at))
    throw new UsageError(`--until must be an ISO time or epoch milliseconds, got "${v.until}".`);
  return at;
}

export const CONTROL_COMMANDS: Record<string, ControlCommand> = {
  'pos order-behavior': {
    kind: 'pos',
    args: ['BEHAVIOR'],
    run: async (c, [behavior]) => ({
      print: await c.switches({ order_behavior: behavior as OrderBehavior }),
    }),
  },
  'pos order-status': {
    kind: 'pos',
    args: ['ORDER_ID', 'STATUS'],
    run: (c, [id, status]) =>
      answered(c.sendOrderStatus(id!, status as Parameters<SandboxControl['sendOrderStatus']>[1])),
  },
  'pos pause': {
    kind: 'pos',
    args: ['LOCATION'],
    options: ['minutes', 'until'],
    run: (c, [location], v) => answered(c.sendLocationStatus(location!, 'inactive', pausedUntil(v))),
  },
  'pos resume': {
    kind: 'pos',
    args: ['LOCATION'],
    run: (c, [location]) => answered(c.sendLocationStatus(location!, 'active')),
  },
  'dsp events': {
    kind: 'dsp',
    args: [],
    options: ['order-id', 'type'],
    run: async (c, _args, v) => ({ print: await c.events({ order_id: v['order-id'], type: v.type }) }),
  },
};

const NAMES: Record<SandboxKind, string> = {
  pos: 'sandbox POS',
  dsp: 'sandbox DSP',
  events: 'sandbox events',
};

/** Runs `stream-sandbox <name> ...argv`; answers the exit code (1: the platform refused the webhook sent). */
export async function runControlCommand(
  name: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
  usage: string,
): Promise<number> {
  const command = CONTROL_COMMANDS[name]!;
  const text = { type: 'string' } as const;
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: text,
      platform: text,
      'client-id': text,
      'client-secret': text,
      ...Object.fromEntries((command.options ?? []).map((o) => [o, text])),
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const v = values as Values;
  if (positionals.length !== command.args.length) {
    const expected = command.args.length ? command.args.join(' ') : 'no arguments';
    throw new UsageError(`${name} takes ${expected}, got ${positionals.length} argument(s).`);
  }
  const K = command.kind.toUpperCase();
  const platform = httpUrl('--platform', v.platform ?? env.STREAM_URL);
  const url =
    httpUrl('--url', v.url ?? env[`SANDBOX_${K}_URL`]) ??
    (platform && `${platform.replace(/\/$/, '')}/sandbox/${command.kind}`);
  if (!url) throw new UsageError(`--url (or --platform) is required: where the ${NAMES[command.kind]} is.`);
  const client_id = v['client-id'] ?? env[`SANDBOX_${K}_CLIENT_ID`];
  const client_secret = v['client-secret'] ?? env[`SANDBOX_${K}_CLIENT_SECRET`];
  if (!client_id || !client_secret)
    throw new UsageError(
      `--client-id and --client-secret are required: the ${NAMES[command.kind]}'s control credentials.`,
    );

  let outcome: Outcome;
  try {
    outcome = await command.run(sandboxControl(url, { client_id, client_secret }), positionals, v);
  } catch (err) {
    throw refusal(err, `the ${NAMES[command.kind]} at ${url}`);
  }
  console.log(JSON.stringify(outcome.print, null, 2));
  return outcome.refused ? 1 : 0;
}

/** A control route's refusal, or a simulator that cannot be reached, as one line: what to fix. */
function refusal(err: unknown, where: string): Error {
  if (err instanceof UsageError) return err;
  if (err instanceof ControlError) {
    const { code, message } =
      (err.body as { error?: { code?: string; message?: string } } | null)?.error ?? {};
    const text = (message ?? String(err.body)).replace(/\s+/g, ' ');
    const said = `${where} answered ${err.status}${code ? ` ${code}` : ''}: ${text}`;
    // What the route refused as invalid is the command line's mistake (exit 2), as for send-order.
    return code === 'validation_failed' ? new UsageError(said) : new SandboxError('internal_error', said);
  }
  // fetch's own failure (refused, unknown host): anything else is a bug, and keeps its stack.
  if (!(err instanceof TypeError && err.message === 'fetch failed')) return err as Error;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return new SandboxError(
    'internal_error',
    `Could not reach ${where} (${cause?.code ?? cause?.message ?? (err as Error).message}).`,
  );
}
