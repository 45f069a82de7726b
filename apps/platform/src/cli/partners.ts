import type { z } from 'zod';
import { loadConfig } from '../config.ts';
import { MenuSettings } from '../menus/settings.ts';
import { CreatePartnerRequest, SetRootScopesRequest } from '../partners/input.ts';
import { SECRET_KINDS, type SecretKind } from '../partners/service.ts';
import { parseFlags, printJson, requireFlags } from './args.ts';
import { withCommands } from './backend.ts';
import { UsageError } from './errors.ts';

export const PARTNERS_USAGE = `Usage:
  stream-platform partners create --kind pos|dsp|events|white_label --slug SLUG --name NAME
                                  [--base-url URL] [--scopes a,b]
                                  [--oauth-client-id ID --oauth-client-secret SECRET]
      Registers a partner. Prints JSON with partner_id, slug, client_id, client_secret and
      webhook_secret: the secrets are shown this once (the client secret is stored hashed).
      --base-url        where the partner's own endpoints live (http or https)
      --scopes          Partner API scopes of its root client, comma-separated: user,
                        onboarding, legacy_onboarding, sso, billing (the white-label scopes:
                        partner tokens, organisations and onboarding, no endpoint yet, SSO,
                        billing). Default by kind, least
                        privilege: all five for white_label, none for pos, dsp and events
                        (their calls need no scope); name them only for a POS, DSP or event
                        provider whose partnership includes white-label work. The hosted
                        scopes (menu, orders, stores) come with companies grant
      --oauth-client-*  the client credentials the partner issued to the platform (stored encrypted)
  stream-platform partners list
      Prints every partner as JSON, without its secrets, except the sandbox partners
      (sandbox-pos, sandbox-dsp, sandbox-events), whose secrets it shows again.
  stream-platform partners rotate-secret --slug SLUG [--which client|webhook|both]
      Replaces the root client secret, the webhook secret, or both (default) and prints the new
      ones once. The old secrets stop working at once; rotating the client secret also revokes
      every access and refresh token issued to that client, every partner token (POST /tokens)
      of the partner, and its SSO login tokens not yet redeemed.
  stream-platform partners set-scopes --slug SLUG --scopes a,b|none
      Sets the Partner API scopes of the partner's root client, whatever its kind (a POS that also
      sells a white-label product; a partner migrated to none by 0023 that needs them back): any of
      user, onboarding, legacy_onboarding, sso, billing, or none. Hosted scopes (menu, orders,
      stores) stay as companies grant set them. Refresh tokens lose a scope taken away; a new
      scope comes with the next client_credentials token. Prints the client's scopes.
  stream-platform partners go-live --slug SLUG
      Moves a POS, DSP or event provider from sandbox to live. Only a partner with a passed
      certification run (POST /certification/runs) may go live; partners list shows
      certified_run_id, certified_at and live_at.
  stream-platform partners menu-settings --slug SLUG [--menu-form v1|v2] [--max-modifier-depth N]
                                         [--price-platform doordash|uber|grubhub|chownow|flipdish|none]
      How a DSP takes its menus: the v2 (flat) menu file flag, the deepest modifier nesting it
      accepts (default 3), and whose price overrides apply (default: its slug, when it is one).
      Prints the settings in force.`;

const CREATE_FLAGS = [
  'kind',
  'slug',
  'name',
  'base-url',
  'scopes',
  'oauth-client-id',
  'oauth-client-secret',
] as const;
const snake = (flag: string) => flag.replaceAll('-', '_');
const flagOf = (field: string) => `--${field.replaceAll('_', '-')}`;
const FIELDS = new Set(Object.keys(CreatePartnerRequest.shape));

/** A validation issue in the words of the command line: `--base-url: must be an http:// ...`. */
function describeIssue(issue: z.core.$ZodIssue, raw: Record<string, unknown>): string {
  const [field, index] = issue.path;
  let message = issue.message.replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (w) => (FIELDS.has(w) ? flagOf(w) : w));
  if (issue.code === 'invalid_value') {
    const given = raw[String(field)];
    const value = Array.isArray(given) && typeof index === 'number' ? given[index] : given;
    message = `"${String(value)}" is not one of ${issue.values.join(', ')}`;
  }
  const flag = typeof field === 'string' ? flagOf(field) : undefined;
  return flag && !message.includes(flag) ? `${flag}: ${message}.` : `${message}.`;
}

async function create(args: string[]): Promise<void> {
  const flags = parseFlags(args, CREATE_FLAGS, PARTNERS_USAGE);
  if (!flags) return console.log(PARTNERS_USAGE);
  requireFlags(flags, ['kind', 'slug', 'name'], 'partners create', PARTNERS_USAGE);
  const raw: Record<string, unknown> = {};
  for (const flag of CREATE_FLAGS) {
    if (flags[flag] !== undefined) raw[snake(flag)] = flags[flag];
  }
  if (typeof raw.scopes === 'string') {
    raw.scopes = raw.scopes
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }
  const parsed = CreatePartnerRequest.safeParse(raw);
  if (!parsed.success) throw new UsageError(describeIssue(parsed.error.issues[0]!, raw), PARTNERS_USAGE);
  printJson(await withCommands(loadConfig(), (c) => c.createPartner(parsed.data)));
}

async function list(args: string[]): Promise<void> {
  if (!parseFlags(args, [], PARTNERS_USAGE)) return console.log(PARTNERS_USAGE);
  printJson(await withCommands(loadConfig(), (c) => c.listPartners()));
}

const WHICH: Record<string, readonly SecretKind[]> = {
  client: ['client'],
  webhook: ['webhook'],
  both: SECRET_KINDS,
};

async function rotateSecret(args: string[]): Promise<void> {
  const flags = parseFlags(args, ['slug', 'which'], PARTNERS_USAGE);
  if (!flags) return console.log(PARTNERS_USAGE);
  requireFlags(flags, ['slug'], 'partners rotate-secret', PARTNERS_USAGE);
  const name = flags.which ?? 'both';
  const which = Object.hasOwn(WHICH, name) ? WHICH[name] : undefined;
  if (!which)
    throw new UsageError(`--which must be client, webhook or both (got "${flags.which}").`, PARTNERS_USAGE);
  const slug = flags.slug!;
  printJson(await withCommands(loadConfig(), (c) => c.rotateSecret(slug, which)));
}

async function menuSettings(args: string[]): Promise<void> {
  const flags = parseFlags(
    args,
    ['slug', 'menu-form', 'max-modifier-depth', 'price-platform'],
    PARTNERS_USAGE,
  );
  if (!flags) return console.log(PARTNERS_USAGE);
  requireFlags(flags, ['slug'], 'partners menu-settings', PARTNERS_USAGE);
  const depth = flags['max-modifier-depth'];
  const platform = flags['price-platform'];
  const parsed = MenuSettings.safeParse({
    ...(flags['menu-form'] !== undefined ? { menu_form: flags['menu-form'] } : {}),
    ...(depth !== undefined ? { max_modifier_depth: /^\d+$/.test(depth) ? Number(depth) : depth } : {}),
    ...(platform !== undefined ? { price_platform: platform === 'none' ? null : platform } : {}),
  });
  if (!parsed.success) throw new UsageError(describeIssue(parsed.error.issues[0]!, flags), PARTNERS_USAGE);
  const slug = flags.slug!;
  printJson(await withCommands(loadConfig(), (c) => c.setMenuSettings(slug, parsed.data)));
}

async function setScopes(args: string[]): Promise<void> {
  const flags = parseFlags(args, ['slug', 'scopes'], PARTNERS_USAGE);
  if (!flags) return console.log(PARTNERS_USAGE);
  requireFlags(flags, ['slug', 'scopes'], 'partners set-scopes', PARTNERS_USAGE);
  const names = flags.scopes!.split(',').map((s) => s.trim());
  const raw = { scopes: names.length === 1 && names[0] === 'none' ? [] : names.filter(Boolean) };
  if (!raw.scopes.length && names[0] !== 'none') {
    throw new UsageError('--scopes: name at least one scope, or none to take them all away.', PARTNERS_USAGE);
  }
  const parsed = SetRootScopesRequest.safeParse(raw);
  if (!parsed.success) throw new UsageError(describeIssue(parsed.error.issues[0]!, raw), PARTNERS_USAGE);
  const slug = flags.slug!;
  printJson(await withCommands(loadConfig(), (c) => c.setRootScopes(slug, parsed.data.scopes)));
}

async function goLive(args: string[]): Promise<void> {
  const flags = parseFlags(args, ['slug'], PARTNERS_USAGE);
  if (!flags) return console.log(PARTNERS_USAGE);
  requireFlags(flags, ['slug'], 'partners go-live', PARTNERS_USAGE);
  const slug = flags.slug!;
  printJson(await withCommands(loadConfig(), (c) => c.goLive(slug)));
}

const SUBCOMMANDS: Record<string, (args: string[]) => Promise<void>> = {
  create,
  list,
  'rotate-secret': rotateSecret,
  'set-scopes': setScopes,
  'go-live': goLive,
  'menu-settings': menuSettings,
};

export async function partners([sub, ...args]: string[]): Promise<void> {
  if (sub === 'help' || sub === '--help' || sub === '-h') return console.log(PARTNERS_USAGE);
  const run = sub !== undefined && Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  if (!run) {
    const what = sub === undefined ? 'needs a command' : `has no command "${sub}"`;
    throw new UsageError(
      `partners ${what}: create, list, rotate-secret, set-scopes, go-live or menu-settings.`,
      PARTNERS_USAGE,
    );
  }
  return run(args);
}
