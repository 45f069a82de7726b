import type { PartnerLocationAddress } from '@stream/contracts/apis/become-a-pos/index';

export type SandboxKind = 'pos' | 'dsp' | 'events';
export const SANDBOX_KINDS: readonly SandboxKind[] = ['pos', 'dsp', 'events'];

/** Credentials this simulated partner issued to the platform (the platform's OAuth client). */
export interface SandboxClient {
  client_id: string;
  client_secret: string;
}

export interface SandboxLocation {
  provider_id: string;
  name: string;
  address: PartnerLocationAddress;
  /** POS only (a DSP store has no time zone or prep time on the wire). */
  timezone: string;
  prep_time_minutes: number;
}

/** A merchant account that can log in on the authorize page. */
export interface SandboxAccount {
  id: string;
  name: string;
  sso_details: { email: string; full_name: string; phone_number: string };
  locations: SandboxLocation[];
}

export interface SandboxOptions {
  clients: SandboxClient[];
  /** Signs codes and tokens, which are stateless: the same secret keeps them valid across restarts. */
  tokenSecret: string;
  /** Default one hour. */
  accessTokenTtlMs?: number;
  /** Default 30 days. */
  refreshTokenTtlMs?: number;
  /** Default 10 minutes. */
  codeTtlMs?: number;
  /** Merchant accounts; default {@link demoAccounts} for the kind. The first is the default login. */
  accounts?: SandboxAccount[];
  /**
   * Where the platform is, for the webhooks the simulator sends. A function when it is
   * known only later (a platform mounting the sandbox before it listens on port 0).
   */
  platformUrl?: string | (() => string | undefined);
  /** The partner's webhook secret: verifies `X-Stream-Signature` and signs webhooks to the platform. */
  webhookSecret?: string;
  /**
   * The partner's id or slug on the platform, for the webhook URLs (`/order/{it}`, `/pos/{it}/webhook`).
   * A function is asked on every webhook (a mounted sandbox learns its partner from the platform).
   * Without it the simulator cannot send webhooks: the control routes that send them answer 409.
   */
  partnerRef?: string | (() => string | undefined);
  /** How many received requests `GET /_sandbox/received` keeps (oldest dropped first). Default 500. */
  receivedLimit?: number;
  /**
   * The credentials the control routes (`/_sandbox/...`) accept as HTTP Basic; default `clients`.
   * A function is asked on every control request (credentials that can be rotated meanwhile).
   */
  controlClients?: SandboxClient[] | (() => SandboxClient[] | Promise<SandboxClient[]>);
  /**
   * DSP: the menus published to its stores before it started, which a restart would otherwise forget
   * (its demo orders would then name items no POS sells). A platform mounting the sandbox reads them
   * from its database.
   */
  publishedMenus?: () => Promise<PublishedMenu[]>;
}

/** A menu file published to a DSP store, as the DSP downloaded it. */
export interface PublishedMenu {
  location_id: string;
  download_url: string;
  time: string;
  menu_file: unknown;
}

export interface ResolvedOptions
  extends Required<
    Omit<SandboxOptions, 'platformUrl' | 'webhookSecret' | 'controlClients' | 'partnerRef' | 'publishedMenus'>
  > {
  publishedMenus: SandboxOptions['publishedMenus'];
  partnerRef: () => string | undefined;
  platformUrl: () => string | undefined;
  webhookSecret: string | undefined;
  controlClients: () => SandboxClient[] | Promise<SandboxClient[]>;
}

const HOUR = 3_600_000;

export function resolveOptions(kind: SandboxKind, opts: SandboxOptions): ResolvedOptions {
  if (!opts.tokenSecret) throw new Error('sandbox: tokenSecret is required');
  return {
    clients: opts.clients,
    tokenSecret: opts.tokenSecret,
    accessTokenTtlMs: opts.accessTokenTtlMs ?? HOUR,
    refreshTokenTtlMs: opts.refreshTokenTtlMs ?? 30 * 24 * HOUR,
    codeTtlMs: opts.codeTtlMs ?? 10 * 60_000,
    accounts: opts.accounts ?? demoAccounts(kind),
    platformUrl: () => {
      const url = typeof opts.platformUrl === 'function' ? opts.platformUrl() : opts.platformUrl;
      return url ? url.replace(/\/$/, '') : undefined;
    },
    webhookSecret: opts.webhookSecret,
    partnerRef: () => (typeof opts.partnerRef === 'function' ? opts.partnerRef() : opts.partnerRef),
    publishedMenus: opts.publishedMenus,
    receivedLimit: opts.receivedLimit ?? 500,
    controlClients: () => {
      const given = opts.controlClients ?? opts.clients;
      return typeof given === 'function' ? given() : given;
    },
  };
}

const address = (
  address_line_1: string,
  city: string,
  state: string,
  postal_code: string,
  address_line_2 = '',
) => ({
  address_line_1,
  address_line_2,
  city,
  state,
  postal_code,
  country: 'US',
});

/** One restaurant group in three cities and a single-site bistro, the same merchants on the POS and the DSP. */
const MERCHANTS = [
  {
    id: 'demo-merchant',
    name: 'Demo Tacos Group',
    sso_details: {
      email: 'owner@demotacos.example',
      full_name: 'Dana Whitfield',
      phone_number: '+14155550123',
    },
    sites: [
      {
        key: 'mission',
        name: 'Demo Tacos Mission',
        address: address('2299 Mission St', 'San Francisco', 'CA', '94110'),
        timezone: 'America/Los_Angeles',
        prep: 20,
      },
      {
        key: 'williamsburg',
        name: 'Demo Tacos Williamsburg',
        address: address('180 Bedford Ave', 'Brooklyn', 'NY', '11249', 'Unit 1'),
        timezone: 'America/New_York',
        prep: 15,
      },
      {
        key: 'south-congress',
        name: 'Demo Tacos South Congress',
        address: address('1500 S Congress Ave', 'Austin', 'TX', '78704'),
        timezone: 'America/Chicago',
        prep: 25,
      },
    ],
  },
  {
    id: 'second-merchant',
    name: 'Corner Bistro',
    sso_details: {
      email: 'chef@cornerbistro.example',
      full_name: 'Luis Ortega',
      phone_number: '+13125550188',
    },
    sites: [
      {
        key: 'wicker-park',
        name: 'Corner Bistro Wicker Park',
        address: address('1550 N Milwaukee Ave', 'Chicago', 'IL', '60622'),
        timezone: 'America/Chicago',
        prep: 30,
      },
    ],
  },
];

/** The demo accounts of a simulator: POS location ids `loc-<site>`, DSP store ids `store-<n>`. */
export function demoAccounts(kind: SandboxKind): SandboxAccount[] {
  let store = 1000;
  return MERCHANTS.map((m) => ({
    id: m.id,
    name: m.name,
    sso_details: { ...m.sso_details },
    locations: m.sites.map((s) => ({
      provider_id: kind === 'dsp' ? `store-${++store}` : `loc-${s.key}`,
      name: s.name,
      address: { ...s.address },
      timezone: s.timezone,
      prep_time_minutes: s.prep,
    })),
  }));
}
