import { accessSync, constants, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CERTIFICATION_KINDS, type CertificationKind } from '@stream/contracts/certification';
import { CALL_TIMEOUT_MS } from '../certification/check.ts';
import { listenInbox } from '../certification/inbox.ts';
import { checkLines, summaryLine, toJUnit } from '../certification/report.ts';
import { menuFormProblem, oauthProblem, runCertification } from '../certification/runner.ts';
import { parseFlags, printJson, requireFlags } from './args.ts';
import { CliError, UsageError } from './errors.ts';

export const CERTIFY_USAGE = `Usage:
  stream-platform certify pos|dsp|events --base-url URL --webhook-secret SECRET
                          [--client-id ID --client-secret SECRET | --token TOKEN]
                          [--listen HOST:PORT] [--public-url URL] [--menu-form v1|v2]
                          [--timeout-ms N] [--webhook-wait-ms N] [--json FILE] [--junit FILE]
      Plays the platform's side against your implementation at --base-url, over real HTTP, and
      says check by check what passes and what to fix. Progress goes to stderr, the JSON report
      to stdout (and to --json FILE); --junit FILE writes a JUnit XML report for your CI.
      --webhook-secret   your webhook secret: signs what the kit sends you (events, the trigger)
                         and verifies the webhooks you send it
      --client-id/--client-secret
                         the OAuth client you issued to the platform (POS, DSP): the OAuth checks
                         log a test merchant in with them; --token instead uses a merchant access
                         token you already have (the OAuth checks are then skipped: not certifiable);
                         all three are refused for events, which have no OAuth
      --listen           where the kit takes your webhooks and serves menu files (default
                         127.0.0.1:0, any free port); --public-url is that address as your
                         implementation reaches it (a tunnel, a container host)
      --menu-form v2     (DSP only; refused for pos and events) check the v2 menu file as
                         well as v1
      --timeout-ms       how long each call may take (default 15000, as in production)
      --webhook-wait-ms  how long to wait for each webhook you send (default 60000)
      Exit code 0 only when every required check passed.`;

const FLAGS = [
  'base-url',
  'webhook-secret',
  'client-id',
  'client-secret',
  'token',
  'listen',
  'public-url',
  'menu-form',
  'timeout-ms',
  'webhook-wait-ms',
  'json',
  'junit',
] as const;

/** The flags only some kinds take, and why a kind cannot: given anyway, they are refused, not ignored. */
const KIND_FLAGS: Partial<Record<(typeof FLAGS)[number], (kind: CertificationKind) => string | undefined>> = {
  'client-id': oauthProblem,
  'client-secret': oauthProblem,
  token: oauthProblem,
  'menu-form': menuFormProblem,
};

/** The longest timer Node keeps (a longer one fires after 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

function positive(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_TIMER_MS) {
    throw new UsageError(
      `--${flag} must be a whole number of milliseconds, 1 to ${MAX_TIMER_MS} (got "${value}").`,
      CERTIFY_USAGE,
    );
  }
  return Number(value);
}

function listenOf(value: string | undefined): { host: string; port: number } {
  if (value === undefined) return { host: '127.0.0.1', port: 0 };
  const match = /^(.+):(\d{1,5})$/.exec(value);
  if (!match || Number(match[2]) > 65535) {
    throw new UsageError(`--listen must be HOST:PORT, e.g. 127.0.0.1:4010 (got "${value}").`, CERTIFY_USAGE);
  }
  return { host: match[1]!, port: Number(match[2]) };
}

function baseUrlOf(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--base-url must be an http:// or https:// URL (got "${value}").`, CERTIFY_USAGE);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--base-url must be an http:// or https:// URL (got "${value}").`, CERTIFY_USAGE);
  }
  return value.replace(/\/+$/, '');
}

function publicUrlOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // The trigger's webhook_url is built from it: the partner posts there.
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new UsageError(`--public-url must be an http:// or https:// URL (got "${value}").`, CERTIFY_USAGE);
  }
  return value;
}

/** A report file's folder must exist and be writable before a run that may take minutes. */
function reportFile(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const folder = dirname(resolve(value));
  try {
    accessSync(folder, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`--${flag} ${value}: cannot write in ${folder} (${code}).`, CERTIFY_USAGE);
  }
  return value;
}

async function listenInboxOf(
  kind: CertificationKind,
  secret: string,
  listen: string | undefined,
  publicUrl: string | undefined,
) {
  try {
    return await listenInbox({ kind, secret, ...listenOf(listen), ...(publicUrl ? { publicUrl } : {}) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    const why =
      code === 'EADDRINUSE'
        ? 'the port is in use'
        : code === 'EADDRNOTAVAIL'
          ? 'this machine has no such address'
          : code;
    throw new CliError(`--listen ${listen ?? '127.0.0.1:0'}: cannot listen there (${why}).`);
  }
}

export async function certify([kind, ...args]: string[]): Promise<void> {
  if (kind === undefined || kind === 'help' || kind === '--help' || kind === '-h') {
    if (kind === undefined) throw new UsageError('certify needs a kind: pos, dsp or events.', CERTIFY_USAGE);
    return console.log(CERTIFY_USAGE);
  }
  if (!(CERTIFICATION_KINDS as readonly string[]).includes(kind)) {
    throw new UsageError(`certify has no kind "${kind}": pos, dsp or events.`, CERTIFY_USAGE);
  }
  const flags = parseFlags(args, FLAGS, CERTIFY_USAGE);
  if (!flags) return console.log(CERTIFY_USAGE);
  requireFlags(flags, ['base-url', 'webhook-secret'], `certify ${kind}`, CERTIFY_USAGE);
  for (const [flag, problemOf] of Object.entries(KIND_FLAGS)) {
    const problem =
      flags[flag as keyof typeof KIND_FLAGS] === undefined ? undefined : problemOf(kind as CertificationKind);
    if (problem) throw new UsageError(`--${flag} ${problem}.`, CERTIFY_USAGE);
  }
  const hasClient = flags['client-id'] !== undefined || flags['client-secret'] !== undefined;
  if (hasClient) requireFlags(flags, ['client-id', 'client-secret'], `certify ${kind}`, CERTIFY_USAGE);
  if (hasClient && flags.token !== undefined) {
    throw new UsageError('Give either --client-id and --client-secret, or --token, not both.', CERTIFY_USAGE);
  }
  if (kind !== 'events' && !hasClient && flags.token === undefined) {
    throw new UsageError(
      `certify ${kind} needs --client-id and --client-secret (or --token).`,
      CERTIFY_USAGE,
    );
  }
  const menuForm = flags['menu-form'] ?? 'v1';
  if (menuForm !== 'v1' && menuForm !== 'v2') {
    throw new UsageError(`--menu-form must be v1 or v2 (got "${menuForm}").`, CERTIFY_USAGE);
  }
  const timeoutMs = positive(flags['timeout-ms'], 'timeout-ms', CALL_TIMEOUT_MS);
  const webhookWaitMs = positive(flags['webhook-wait-ms'], 'webhook-wait-ms', 60_000);
  const baseUrl = baseUrlOf(flags['base-url']!);
  const docsUrl = (process.env.PUBLIC_URL || 'http://localhost:8080').replace(/\/+$/, '');
  const json = reportFile(flags.json, 'json');
  const junit = reportFile(flags.junit, 'junit');
  const inbox = await listenInboxOf(
    kind as CertificationKind,
    flags['webhook-secret']!,
    flags.listen,
    publicUrlOf(flags['public-url']),
  );
  const say = (line: string) => process.stderr.write(`${line}\n`);
  try {
    say(`Certifying the ${kind} implementation at ${baseUrl}; webhooks to ${inbox.webhookUrl}`);
    const report = await runCertification({
      kind: kind as CertificationKind,
      baseUrl,
      webhookSecret: flags['webhook-secret']!,
      ...(hasClient
        ? { client: { client_id: flags['client-id']!, client_secret: flags['client-secret']! } }
        : {}),
      ...(flags.token ? { token: flags.token } : {}),
      menuV2: menuForm === 'v2',
      timeoutMs,
      webhookWaitMs,
      inbox,
      prompt: (line) => say(`  >>> ${line}`),
      onProgress: (check) => {
        if (check.status !== 'running') for (const line of checkLines(check, docsUrl)) say(line);
      },
    });
    say(summaryLine(report));
    // stdout first: a file that cannot be written loses nothing of a long run.
    printJson(report);
    if (!report.passed) process.exitCode = 1;
    try {
      if (json) writeFileSync(json, JSON.stringify(report, null, 2) + '\n');
      if (junit) writeFileSync(junit, toJUnit(report, docsUrl));
    } catch (err) {
      throw new CliError(`Could not write the report file: ${(err as Error).message}`);
    }
  } finally {
    await inbox.close();
  }
}
