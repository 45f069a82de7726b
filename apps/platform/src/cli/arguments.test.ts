import { describe, expect, it } from 'vitest';
import { UsageError } from './errors.ts';
import { keys } from './keys.ts';
import { partners } from './partners.ts';

/** Every bad argument is refused before any database is touched, naming the flag to fix. */
describe('CLI arguments', () => {
  const create = (...extra: string[]) => [
    'create',
    '--kind',
    'pos',
    '--slug',
    'acme',
    '--name',
    'Acme',
    ...extra,
  ];
  it.each([
    [['create', '--kind', 'pos', '--name', 'X'], 'partners create needs --slug.'],
    [['create'], 'partners create needs --kind, --slug, --name.'],
    [create('--colour', 'red'), "Unknown option '--colour'."],
    [create('--slug'), "Option '--slug <value>' argument missing"],
    [create('extra'), "Unexpected argument 'extra'"],
    [
      ['create', '--kind', 'kiosk', '--slug', 'ab', '--name', 'X'],
      '--kind: "kiosk" is not one of pos, dsp, events, white_label.',
    ],
    [create('--slug', 'Not A Slug'), '--slug: must be 2-63 lower-case letters, digits or hyphens'],
    [create('--slug', 'a'), '--slug: must be 2-63'],
    [create('--name', '  '), '--name: must not be empty.'],
    [create('--base-url', 'ftp://files.example'), '--base-url: must be an http:// or https:// URL.'],
    [create('--base-url', 'not a url'), '--base-url: must be an http:// or https:// URL.'],
    [
      create('--scopes', 'user,root'),
      '--scopes: "root" is not one of user, onboarding, legacy_onboarding, sso, billing.',
    ],
    // Hosted scopes come with a company grant, not with the partner.
    [
      create('--scopes', 'user,menu'),
      '--scopes: "menu" is not one of user, onboarding, legacy_onboarding, sso, billing.',
    ],
    [create('--scopes', ','), '--scopes: must name at least one scope.'],
    [
      create('--oauth-client-id', 'id'),
      '--oauth-client-id and --oauth-client-secret go together: give both or neither.',
    ],
    [create('--oauth-client-secret', 's'), '--oauth-client-id and --oauth-client-secret go together'],
    [['rotate-secret'], 'partners rotate-secret needs --slug.'],
    [
      ['rotate-secret', '--slug', 'ab', '--which', 'all'],
      '--which must be client, webhook or both (got "all").',
    ],
    [['list', '--all'], "Unknown option '--all'."],
    [
      ['delete'],
      'partners has no command "delete": create, list, rotate-secret, set-scopes, go-live or menu-settings.',
    ],
    [[], 'partners needs a command: create, list, rotate-secret, set-scopes, go-live or menu-settings.'],
    [['set-scopes', '--slug', 'ab'], 'partners set-scopes needs --scopes.'],
    [
      ['set-scopes', '--slug', 'ab', '--scopes', ','],
      '--scopes: name at least one scope, or none to take them all away.',
    ],
    [
      ['set-scopes', '--slug', 'ab', '--scopes', 'sso,menu'],
      '--scopes: "menu" is not one of user, onboarding, legacy_onboarding, sso, billing.',
    ],
  ])('partners %j', async (args, message) => {
    const err = await partners(args).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toContain(message);
    expect((err as UsageError).usage).toContain('stream-platform partners create');
  });

  it('keys needs its subcommand', async () => {
    await expect(keys([])).rejects.toThrow('keys needs a command: rotate.');
    await expect(keys(['rotate', '--now'])).rejects.toThrow("Unknown option '--now'.");
  });
});
