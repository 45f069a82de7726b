import { expect, it } from 'vitest';
import { invoiceNumber } from './invoice.ts';

it('numbers an invoice by partner and month, and an organisation-limited one by its organisation too', () => {
  const partner = 'ptr_a18ff1eac5cde4c2d123d50d';
  expect(invoiceNumber(partner, '2026-11')).toBe('INV-2026-11-A18FF1EA');
  expect(invoiceNumber(partner, '2026-11', null)).toBe('INV-2026-11-A18FF1EA');
  const a = invoiceNumber(partner, '2026-11', 'org_0f3c9d2e7b1a4c5d6e7f8a9b');
  const b = invoiceNumber(partner, '2026-11', 'org_77aa66bb55cc44dd33ee22ff');
  expect(a).toBe('INV-2026-11-A18FF1EA-0F3C9D2E');
  expect(new Set([a, b, invoiceNumber(partner, '2026-11')]).size).toBe(3);
});
