/**
 * Turns the address a POS or DSP sends (`address_line_1/2, city, state, postal_code, country`)
 * into the Partner API's onboarding address: ISO 3166-1 country, ISO 3166-2 region
 * (`US-CA`), normalised postal code and a one-line `formatted_address`. Pure; tested with a table.
 */
import type { PartnerLocationAddress } from '@stream/contracts/apis/become-a-pos/locations';
import type { OnboardingAddress } from '@stream/contracts/apis/partner/onboarding-locations';

/**
 * What a partner may send, read liberally: the contracts' `PartnerLocationAddress` fields, each
 * optional and nullable, plus what some partners add (a third line, coordinates).
 */
export type PartnerAddress = {
  [K in keyof PartnerLocationAddress]?: string | null | undefined;
} & {
  address_line_3?: string | null | undefined;
  latitude?: number | null | undefined;
  longitude?: number | null | undefined;
};

const US_STATES: Record<string, string> = {
  AL: 'Alabama', AK: 'Alaska', AZ: 'Arizona', AR: 'Arkansas', CA: 'California', CO: 'Colorado',
  CT: 'Connecticut', DE: 'Delaware', FL: 'Florida', GA: 'Georgia', HI: 'Hawaii', ID: 'Idaho',
  IL: 'Illinois', IN: 'Indiana', IA: 'Iowa', KS: 'Kansas', KY: 'Kentucky', LA: 'Louisiana',
  ME: 'Maine', MD: 'Maryland', MA: 'Massachusetts', MI: 'Michigan', MN: 'Minnesota',
  MS: 'Mississippi', MO: 'Missouri', MT: 'Montana', NE: 'Nebraska', NV: 'Nevada',
  NH: 'New Hampshire', NJ: 'New Jersey', NM: 'New Mexico', NY: 'New York', NC: 'North Carolina',
  ND: 'North Dakota', OH: 'Ohio', OK: 'Oklahoma', OR: 'Oregon', PA: 'Pennsylvania',
  RI: 'Rhode Island', SC: 'South Carolina', SD: 'South Dakota', TN: 'Tennessee', TX: 'Texas',
  UT: 'Utah', VT: 'Vermont', VA: 'Virginia', WA: 'Washington', WV: 'West Virginia',
  WI: 'Wisconsin', WY: 'Wyoming', DC: 'District of Columbia', AS: 'American Samoa', GU: 'Guam',
  MP: 'Northern Mariana Islands', PR: 'Puerto Rico', UM: 'United States Minor Outlying Islands',
  VI: 'Virgin Islands',
}; // prettier-ignore

const CA_PROVINCES: Record<string, string> = {
  AB: 'Alberta', BC: 'British Columbia', MB: 'Manitoba', NB: 'New Brunswick',
  NL: 'Newfoundland and Labrador', NS: 'Nova Scotia', NT: 'Northwest Territories', NU: 'Nunavut',
  ON: 'Ontario', PE: 'Prince Edward Island', QC: 'Quebec', SK: 'Saskatchewan', YT: 'Yukon',
}; // prettier-ignore

const AU_STATES: Record<string, string> = {
  ACT: 'Australian Capital Territory', NSW: 'New South Wales', NT: 'Northern Territory',
  QLD: 'Queensland', SA: 'South Australia', TAS: 'Tasmania', VIC: 'Victoria', WA: 'Western Australia',
}; // prettier-ignore

const REGIONS: Record<string, Record<string, string>> = { US: US_STATES, CA: CA_PROVINCES, AU: AU_STATES };

/** Country names and alpha-3 codes partners are seen to send, to ISO 3166-1 alpha-2. */
const COUNTRY_ALIASES: Record<string, string> = {
  USA: 'US', 'UNITED STATES': 'US', 'UNITED STATES OF AMERICA': 'US', 'U.S.': 'US', 'U.S.A.': 'US',
  CAN: 'CA', CANADA: 'CA', AUS: 'AU', AUSTRALIA: 'AU', GBR: 'GB', UK: 'GB', 'UNITED KINGDOM': 'GB',
  'GREAT BRITAIN': 'GB', IRL: 'IE', IRELAND: 'IE', MEX: 'MX', MEXICO: 'MX', NZL: 'NZ',
  'NEW ZEALAND': 'NZ', FRA: 'FR', FRANCE: 'FR', DEU: 'DE', GERMANY: 'DE', ESP: 'ES', SPAIN: 'ES',
  NLD: 'NL', NETHERLANDS: 'NL', ITA: 'IT', ITALY: 'IT',
}; // prettier-ignore

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase();

/** Trims, collapses inner whitespace; empty becomes null. */
export function clean(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const s = value.replace(/\s+/g, ' ').trim();
  return s === '' ? null : s;
}

/** ISO 3166-1 alpha-2 for a code, alpha-3 or English name; null when not recognised. */
export function normaliseCountry(raw: string | null | undefined): string | null {
  const s = clean(raw);
  if (!s) return null;
  const key = fold(s);
  if (/^[A-Z]{2}$/.test(key)) return key === 'UK' ? 'GB' : key;
  return COUNTRY_ALIASES[key] ?? null;
}

/**
 * ISO 3166-2 for a region given as code (`CA`, `ca`), full name (`California`, `Québec`) or
 * already in ISO form (`US-CA`). Unknown regions of a country without a table keep their code
 * when it looks like one (1-3 letters or digits); anything else is null rather than a guess.
 */
export function normaliseRegion(raw: string | null | undefined, country: string | null): string | null {
  const s = clean(raw);
  if (!s || !country) return null;
  let key = fold(s).replace(/\.$/, '');
  const iso = /^([A-Z]{2})-([A-Z0-9]{1,3})$/.exec(key);
  if (iso) {
    if (iso[1] !== country) return null;
    key = iso[2]!;
  }
  const table = REGIONS[country];
  if (!table) return /^[A-Z0-9]{1,3}$/.test(key) ? `${country}-${key}` : null;
  if (table[key]) return `${country}-${key}`;
  const byName = Object.entries(table).find(([, name]) => fold(name) === key);
  return byName ? `${country}-${byName[0]}` : null;
}

export function normalisePostalCode(raw: string | null | undefined, country: string | null): string | null {
  const s = clean(raw);
  if (!s) return null;
  const upper = s.toUpperCase();
  if (country === 'US') {
    const zip = /^(\d{5})(?:[ -]?(\d{4}))?$/.exec(upper);
    if (zip) return zip[2] ? `${zip[1]}-${zip[2]}` : zip[1]!;
  }
  if (country === 'CA') {
    const ca = /^([A-Z]\d[A-Z]) ?(\d[A-Z]\d)$/.exec(upper);
    if (ca) return `${ca[1]} ${ca[2]}`;
  }
  if (country === 'GB') {
    const gb = /^([A-Z]{1,2}\d[A-Z\d]?) ?(\d[A-Z]{2})$/.exec(upper);
    if (gb) return `${gb[1]} ${gb[2]}`;
  }
  return upper;
}

const coordinate = (v: number | null | undefined, limit: number) =>
  typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= limit ? v : null;

/** One line, like a maps service prints it: "1 Main St, Suite 2, San Francisco, CA 94103, US". */
export function formatAddress(a: Omit<OnboardingAddress, 'formatted_address'>): string {
  const region = a.administrative_district_level_1?.split('-')[1] ?? null;
  const lines = [a.address_line_1, a.address_line_2, a.address_line_3];
  // North American and Australian order: "City, ST 12345"; elsewhere "12345 City".
  const regionFirst = a.country === 'US' || a.country === 'CA' || a.country === 'AU';
  const place = regionFirst
    ? [a.locality, [region, a.postal_code].filter(Boolean).join(' ')]
    : [[a.postal_code, a.locality].filter(Boolean).join(' '), region];
  return [...lines, ...place, a.country].filter((p): p is string => Boolean(p)).join(', ');
}

export function normaliseAddress(input: PartnerAddress | null | undefined): OnboardingAddress {
  const a = input ?? {};
  const country = normaliseCountry(a.country);
  const out: Omit<OnboardingAddress, 'formatted_address'> = {
    address_line_1: clean(a.address_line_1),
    address_line_2: clean(a.address_line_2),
    address_line_3: clean(a.address_line_3),
    postal_code: normalisePostalCode(a.postal_code, country),
    locality: clean(a.city),
    administrative_district_level_1: normaliseRegion(a.state, country),
    country,
    latitude: coordinate(a.latitude, 90),
    longitude: coordinate(a.longitude, 180),
  };
  return { formatted_address: formatAddress(out), ...out };
}
