import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createSandboxServer, demoDspOrder, sendWebhook, SANDBOX_KINDS, type SandboxKind } from './index.ts';

const USAGE = `Usage: stream-sandbox <pos|dsp|events> [options]
       stream-sandbox dsp send-order --platform URL --partner ID --secret S --location STORE [--file order.json]

Runs a simulated partner on its own, or (send-order) posts one signed new_order to the platform as a
DSP would: the demo order, or the order in --file (a whole webhook body when it has a "type"), and
prints the platform's answer as JSON.

Options (environment variable in brackets):
  --port N              port to listen on (default 7001 pos, 7002 dsp, 7003 events) [PORT]
  --host H              interface to listen on (default 127.0.0.1) [HOST]
  --client-id ID        the OAuth client the platform uses, also the control routes' HTTP Basic
                        credentials (generated if absent) [SANDBOX_CLIENT_ID]
  --client-secret S     its secret (generated if absent) [SANDBOX_CLIENT_SECRET]
  --token-secret S      signs codes and tokens; keep it to keep tokens valid across restarts [SANDBOX_TOKEN_SECRET]
  --webhook-secret S    the partner's webhook secret on the platform [SANDBOX_WEBHOOK_SECRET]
  --platform-url URL    where the platform is [PLATFORM_URL]
  --access-token-ttl-ms N  access token lifetime (default 3600000) [SANDBOX_ACCESS_TOKEN_TTL_MS]`;

const DEFAULT_PORT: Record<SandboxKind, number> = { pos: 7001, dsp: 7002, events: 7003 };

class UsageError extends Error {}

function wholeNumber(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${name} must be a whole number, got "${raw}".`);
  return n;
}

/** `dsp send-order`: one signed webhook to `POST /order/{partner}`, the answer on stdout. */
async function sendOrder(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      platform: { type: 'string' },
      partner: { type: 'string' },
      secret: { type: 'string' },
      location: { type: 'string' },
      file: { type: 'string' },
    },
  });
  for (const flag of ['platform', 'partner', 'secret', 'location'] as const) {
    if (!values[flag]) throw new UsageError(`--${flag} is required.`);
  }
  const given = values.file ? (JSON.parse(readFileSync(values.file, 'utf8')) as Record<string, unknown>) : {};
  const body =
    'type' in given ? given : { type: 'new_order', location_id: values.location, order: demoDspOrder(given) };
  const answer = await sendWebhook(values.platform!, `/order/${values.partner}`, values.secret!, body);
  console.log(JSON.stringify(answer, null, 2));
  if (answer.status >= 400) process.exitCode = 1;
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  if (argv[0] === 'dsp' && argv[1] === 'send-order') return sendOrder(argv.slice(2));
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
      'access-token-ttl-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return console.log(USAGE);
  const kind = positionals[0] as SandboxKind;
  if (!SANDBOX_KINDS.includes(kind) || positionals.length !== 1) {
    throw new UsageError(positionals[0] ? `Unknown simulator "${positionals[0]}".` : 'Name a simulator.');
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
  const platformUrl = values['platform-url'] ?? env.PLATFORM_URL;
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
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`stream-sandbox: ${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
