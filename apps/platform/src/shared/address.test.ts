import { describe, expect, it } from 'vitest';
import { normaliseAddress, normaliseCountry, normalisePostalCode, normaliseRegion } from './address.ts';

describe('normaliseCountry', () => {
  it.each([
    ['US', 'US'],
    ['us', 'US'],
    ['USA', 'US'],
    ['United States', 'US'],
    [' united states of america ', 'US'],
    ['Canada', 'CA'],
    ['UK', 'GB'],
    ['FR', 'FR'],
    ['Atlantis', null],
    ['', null],
    [undefined, null],
  ])('%s -> %s', (raw, iso) => expect(normaliseCountry(raw)).toBe(iso));
});

describe('normaliseRegion (ISO 3166-2)', () => {
  it.each([
    ['CA', 'US', 'US-CA'],
    ['ca', 'US', 'US-CA'],
    ['California', 'US', 'US-CA'],
    ['new york', 'US', 'US-NY'],
    ['US-TX', 'US', 'US-TX'],
    ['D.C.', 'US', null],
    ['DC', 'US', 'US-DC'],
    ['ZZ', 'US', null],
    ['Québec', 'CA', 'CA-QC'],
    ['ON', 'CA', 'CA-ON'],
    ['NSW', 'AU', 'AU-NSW'],
    ['Victoria', 'AU', 'AU-VIC'],
    ['CA-ON', 'US', null],
    ['IDF', 'FR', 'FR-IDF'],
    ['Île-de-France', 'FR', null],
    ['CA', null, null],
    [null, 'US', null],
  ])('%s in %s -> %s', (raw, country, iso) => expect(normaliseRegion(raw, country)).toBe(iso));
});

describe('normalisePostalCode', () => {
  it.each([
    ['94103', 'US', '94103'],
    ['941031234', 'US', '94103-1234'],
    ['94103 1234', 'US', '94103-1234'],
    ['k1a0b1', 'CA', 'K1A 0B1'],
    ['sw1a1aa', 'GB', 'SW1A 1AA'],
    ['75001', 'FR', '75001'],
    ['  ', 'US', null],
  ])('%s in %s -> %s', (raw, country, out) => expect(normalisePostalCode(raw, country)).toBe(out));
});

describe('normaliseAddress', () => {
  it('maps a POS address to the onboarding address with a formatted line', () => {
    expect(
      normaliseAddress({
        address_line_1: ' 1  Market St ',
        address_line_2: 'Suite 200',
        city: 'San Francisco',
        state: 'California',
        postal_code: '94105',
        country: 'USA',
      }),
    ).toEqual({
      formatted_address: '1 Market St, Suite 200, San Francisco, CA 94105, US',
      address_line_1: '1 Market St',
      address_line_2: 'Suite 200',
      address_line_3: null,
      postal_code: '94105',
      locality: 'San Francisco',
      administrative_district_level_1: 'US-CA',
      country: 'US',
      latitude: null,
      longitude: null,
    });
  });

  it('uses the postal-code-first order outside North America and keeps valid coordinates', () => {
    const a = normaliseAddress({
      address_line_1: '10 Rue de Rivoli',
      city: 'Paris',
      postal_code: '75001',
      country: 'France',
      latitude: 48.85,
      longitude: 400,
    });
    expect(a.formatted_address).toBe('10 Rue de Rivoli, 75001 Paris, FR');
    expect(a.latitude).toBe(48.85);
    expect(a.longitude).toBeNull();
  });

  it('survives a missing address', () => {
    expect(normaliseAddress(undefined).formatted_address).toBe('');
  });
});
