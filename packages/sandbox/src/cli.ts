import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SandboxError } from './http.ts';
import { UsageError, httpUrl, wholeNumber } from './cli-args.ts';
import { CONTROL_COMMANDS, CONTROL_USAGE, runControlCommand } from './cli-control.ts';
import { needsMenuItems, withMenuItems } from './menu-order.ts';
import {
  createSandboxServer,
  sandboxControl,
  sendDspWebhook,
  SANDBOX_KINDS,
  type PlatformAnswer,
  type SandboxKind,
} from './index.ts';

const USAGE = `Usage: stream-sandbox <pos|dsp|events> [options]
       stream-sandbox dsp send-order --platform URL --partner ID --secret S --location STORE
                                     --client-id ID --client-secret S [send options]
       stream-sandbox pos <order-behavior|order-status|pause|resume> ... [control options]
       stream-sandbox dsp events [--order-id ID] [--type T] [control options]

Runs a simulated partner on its own, or (send-order) posts one signed webhook to the platform as a
DSP would and prints the platform's answer as JSON ({status, body}; exit 1 when it is 4xx or 5xx).
A new order without items orders from the menu published to the store, read from the sandbox DSP
that downloaded it (as its POST /_sandbox/send does).

Options (environment variable in brackets):
  --port N              port to listen on (default 7001 pos, 7002 dsp, 7003 events) [PORT]
  --host H              interface to listen on (default 127.0.0.1) [HOST]
  --client-id ID        the OAuth client the platform uses, also the control routes' HTTP Basic
                        credentials (generated if absent) [SANDBOX_CLIENT_ID]
  --client-secret S     its secret (generated if absent) [SANDBOX_CLIENT_SECRET]
  --token-secret S      signs codes and tokens; keep it to keep tokens valid across restarts [SANDBOX_TOKEN_SECRET]
  --webhook-secret S    the partner's webhook secret on the platform [SANDBOX_WEBHOOK_SECRET]
  --platform-url URL    where the platform is [PLATFORM_URL]
  --partner-ref ID      the partner's id or slug on the platform, to send it webhooks [SANDBOX_PARTNER_REF]
  --access-token-ttl-ms N  access token lifetime (default 3600000) [SANDBOX_ACCESS_TOKEN_TTL_MS]

Send options:
  --platform URL        where the platform is
  --partner ID          the DSP partner's id or slug (POST {platform}/order/{partner})
  --secret S            its webhook secret (signs the body)
  --location STORE      the store (location_id); not needed when --file holds a whole webhook
  --type T              new_order (default), cancel_order, delivery_status_update, store_status_update
  --file F              JSON: a whole webhook when it has a "type", else (new_order) a partial order
                        filled into the demo order (without "items": the store's menu, see --dsp)
  --dsp URL             the sandbox DSP that holds the store's published menu
                        (default {platform}/sandbox/dsp, the one mounted on the platform)
  --client-id ID        its control credentials (HTTP Basic): the sandbox-dsp partner's client_id,
  --client-secret S     or the OAuth client the DSP issued (stream-platform partners list); needed
                        for a new order without items
  --order-id ID         the order's id (new_order), or the order a cancel or delivery status names
  --reason R            cancel_order: cancel_reason
  --delivery-status S   delivery_status_update: the delivery status
  --store-status S      store_status_update: online or paused

${CONTROL_USAGE}`;

const DEFAULT_PORT: Record<SandboxKind, number> = { pos: 7001, dsp: 7002, events: 7003 };

/** What `dsp send-order`'s flags ask for: a whole webhook or the shorthand `/_sandbox/send` takes. */
function webhookFromFlags(v: Partial<Record<string, string>>): Record<string, unknown> {
  let file: Record<string, unknown> | undefined;
  if (v.file) {
    try {
      file = JSON.parse(readFileSync(v.file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new UsageError(`--file ${v.file}: ${(err as Error).message}`);
    }
    if (!file || typeof file !== 'object' || Array.isArray(file))
      throw new UsageError(`--file ${v.file} must hold a JSON object.`);
    if ('type' in file) return file;
  }
  const type = v.type ?? 'new_order';
  const need = (flag: string) => {
    if (!v[flag]) throw new UsageError(`--${flag} is required${flag === 'location' ? '' : ` for ${type}`}.`);
    return v[flag];
  };
  const location_id = need('location');
  if (file && type !== 'new_order')
    throw new UsageError('--file without a "type" is an order: it goes with --type new_order only.');
  switch (type) {
    case 'new_order':
      return { type, location_id, order: { ...file, ...(v['order-id'] ? { id: v['order-id'] } : {}) } };
    case 'cancel_order':
      return {
        type,
        location_id,
        order_id: need('order-id'),
        ...(v.reason ? { cancel_reason: v.reason } : {}),
      };
    case 'delivery_status_update':
      return { type, location_id, order_id: need('order-id'), delivery_status: need('delivery-status') };
    case 'store_status_update':
      return { type, location_id, status_update: { status: need('store-status') } };
    default:
      throw new UsageError(`Unknown --type "${type}".`);
  }
}

/**
 * A new order without items, filled from the menu published to its store, as the sandbox DSP's own
 * `POST /_sandbox/send` fills it ({@link withMenuItems}): the DSP that downloaded the menu is asked for it.
 * Without a menu there is nothing a POS would take, so nothing is sent.
 */
async function fromPublishedMenu(webhook: unknown, v: Partial<Record<string, string>>): Promise<unknown> {
  const store = (webhook as { location_id: string }).location_id;
  if (!v['client-id'] || !v['client-secret']) {
    throw new UsageError(
      `--client-id and --client-secret are required for an order without items: the sandbox DSP's ` +
        `credentials, to read the menu published to ${store} (or give the order's "items" in --file).`,
    );
  }
  const dsp = v.dsp ?? `${v.platform!.replace(/\/$/, '')}/sandbox/dsp`;
  let menus;
  try {
    menus = await sandboxControl(dsp, {
      client_id: v['client-id'],
      client_secret: v['client-secret'],
    }).menus();
  } catch (err) {
    throw new SandboxError(
      'internal_error',
      `Could not read the menus of the sandbox DSP at ${dsp} (${(err as Error).message}).`,
      undefined,
      502,
    );
  }
  const file = menus.find((m) => m.location_id === store)?.menu_file;
  const filled = withMenuItems(webhook, () => file);
  if (filled === webhook) {
    throw new SandboxError(
      'not_found',
      `The sandbox DSP at ${dsp} holds no menu with an item to order for store ${store}: bind the store to a ` +
        `POS location (that publishes its menu), or give the order's "items" in --file.`,
    );
  }
  return filled;
}

/** `dsp send-order`: one signed webhook to `POST /order/{partner}` (as `/_sandbox/send`), the answer on stdout. */
async function sendOrder(argv: string[]): Promise<void> {
  const text = { type: 'string' } as const;
  const { values } = parseArgs({
    args: argv,
    options: {
      platform: text,
      partner: text,
      secret: text,
      location: text,
      type: text,
      file: text,
      'order-id': text,
      reason: text,
      'delivery-status': text,
      'store-status': text,
      dsp: text,
      'client-id': text,
      'client-secret': text,
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return console.log(USAGE);
  const { help: _, ...v } = values;
  for (const flag of ['platform', 'partner', 'secret'] as const) {
    if (!v[flag]) throw new UsageError(`--${flag} is required.`);
  }
  httpUrl('--platform', v.platform);
  httpUrl('--dsp', v.dsp);
  let webhook: unknown = webhookFromFlags(v);
  if (needsMenuItems(webhook)) webhook = await fromPublishedMenu(webhook, v);
  let answer: PlatformAnswer;
  try {
    answer = await sendDspWebhook(v.platform!, v.partner!, v.secret!, webhook);
  } catch (err) {
    // A body the contract refuses is the caller's mistake (exit 2); an unreachable platform is not.
    if (err instanceof SandboxError && err.code === 'validation_failed') throw new UsageError(err.message);
    throw err;
  }
  console.log(JSON.stringify(answer, null, 2));
  if (answer.status >= 400) process.exitCode = 1;
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  if (argv[0] === 'dsp' && argv[1] === 'send-order') return sendOrder(argv.slice(2));
  const command = `${argv[0]} ${argv[1]}`;
  if (command in CONTROL_COMMANDS) {
    process.exitCode = await runControlCommand(command, argv.slice(2), env, USAGE);
    return;
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'token-secret': { type: 'string' },
      'webhook-secret': { type: 'string' },
      'platform-url': { type: 'string' },
      'partner-ref': { type: 'string' },
      'access-token-ttl-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return console.log(USAGE);
  const kind = positionals[0] as SandboxKind;
  if (!SANDBOX_KINDS.includes(kind) || positionals.length !== 1) {
    const which = 'name one simulator: pos, dsp or events';
    throw new UsageError(
      positionals[0] ? `Unknown simulator "${positionals[0]}": ${which}` : `No simulator: ${which}`,
    );
  }
  const generated: string[] = [];
  const pick = (
    flag: string | undefined,
    envValue: string | undefined,
    make: () => string,
    label: string,
  ) => {
    const given = flag ?? envValue;
    if (given) return given;
    generated.push(label);
    return make();
  };
  const clientId = pick(
    values['client-id'],
    env.SANDBOX_CLIENT_ID,
    () => `sandbox-${kind}-client`,
    'client id',
  );
  const clientSecret = pick(
    values['client-secret'],
    env.SANDBOX_CLIENT_SECRET,
    () => `sbxsec_${randomBytes(24).toString('base64url')}`,
    'client secret',
  );
  const tokenSecret = pick(
    values['token-secret'],
    env.SANDBOX_TOKEN_SECRET,
    () => randomBytes(32).toString('base64url'),
    'token secret',
  );
  const webhookSecret = values['webhook-secret'] ?? env.SANDBOX_WEBHOOK_SECRET;
  const platformUrl = httpUrl('--platform-url', values['platform-url'] ?? env.PLATFORM_URL);
  const partnerRef = values['partner-ref'] ?? env.SANDBOX_PARTNER_REF;
  const accessTokenTtlMs = wholeNumber(
    '--access-token-ttl-ms',
    values['access-token-ttl-ms'] ?? env.SANDBOX_ACCESS_TOKEN_TTL_MS,
  );
  const port = wholeNumber('--port', values.port ?? env.PORT) ?? DEFAULT_PORT[kind];
  const host = values.host ?? env.HOST ?? '127.0.0.1';

  const app = createSandboxServer(
    kind,
    {
      clients: [{ client_id: clientId, client_secret: clientSecret }],
      tokenSecret,
      ...(accessTokenTtlMs !== undefined ? { accessTokenTtlMs } : {}),
      ...(webhookSecret ? { webhookSecret } : {}),
      ...(platformUrl ? { platformUrl } : {}),
      ...(partnerRef ? { partnerRef } : {}),
    },
    { logger: { level: env.LOG_LEVEL ?? 'info' } },
  );
  const url = await app.listen({ port, host });
  const lines = [
    `sandbox ${kind} listening on ${url}`,
    `  client_id:     ${clientId}`,
    `  client_secret: ${clientSecret}`,
    `  control:       ${url}/_sandbox (switches, received, connections; HTTP Basic with the client above)`,
  ];
  const missing = Object.entries({ platformUrl, webhookSecret, partnerRef })
    .filter(([, v]) => !v)
    .map(([k]) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
  if (kind !== 'events' && missing.length)
    lines.push(
      `  (no ${missing.join(', ')}: it cannot send the platform webhooks; its control routes answer 409)`,
    );
  if (generated.includes('token secret'))
    lines.push(
      '  (token secret generated: tokens it issues die with this process; pass --token-secret to keep them)',
    );
  if (kind === 'events' && !webhookSecret)
    lines.push('  (no --webhook-secret: event signatures are recorded as unchecked)');
  console.log(lines.join('\n'));
  const stop = () => void app.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2), process.env).catch((err: unknown) => {
  // One line on stderr: what is wrong, and where the options are (--help prints them all).
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    const message = (err as Error).message.replace(/\.?$/, '.');
    console.error(`stream-sandbox: ${message} Run stream-sandbox --help for the options.`);
    process.exit(2);
  }
  // Our own errors and the system's (a port in use: EADDRINUSE) say what happened in a sentence;
  // anything else is a bug, and needs its stack.
  const systemCode = (err as { code?: unknown; syscall?: unknown }).syscall
    ? (err as { code?: unknown }).code
    : undefined;
  if (err instanceof SandboxError || typeof systemCode === 'string')
    console.error(`stream-sandbox: ${(err as Error).message}`);
  else console.error(err);
  process.exit(1);
});
