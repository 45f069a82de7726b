/**
 * What an active location costs a partner for a month: `settings.billing` on the partner
 * (`{price_per_active_location: <integer, smallest currency unit>, currency: "USD"}`), else the default.
 */
export interface Price {
  unitAmount: number;
  currency: string;
}

export const DEFAULT_PRICE: Price = { unitAmount: 2500, currency: 'USD' };

export function priceFor(settings: Record<string, unknown>): Price {
  const billing = (settings.billing ?? {}) as Record<string, unknown>;
  const amount = billing.price_per_active_location;
  const currency = billing.currency;
  return {
    unitAmount:
      Number.isSafeInteger(amount) && (amount as number) >= 0 ? (amount as number) : DEFAULT_PRICE.unitAmount,
    currency: typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? currency : DEFAULT_PRICE.currency,
  };
}

/** `USD 1,234.50`: ASCII only, so it renders in the PDF's standard font; minor units per ISO 4217. */
export function formatMoney(amount: number, currency: string): string {
  const digits =
    new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
    2;
  const value = (amount / 10 ** digits).toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return `${currency} ${value}`;
}
