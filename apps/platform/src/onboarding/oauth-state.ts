import { createHmac, randomBytes } from 'node:crypto';
import { safeEqual } from '../http/secrets.ts';

/**
 * The two secrets of the browser flow, both HMACs under keys derived from the platform's
 * encryption key (so nothing extra is stored, and any platform process can check them):
 * - the entry token in `entry_url`, bound to one integration;
 * - the OAuth `state`, bound to one integration and to the nonce of one round trip (stored on the
 *   integration and cleared when used, which makes a state single use).
 */

const subkey = (key: Buffer, purpose: string) =>
  createHmac('sha256', key).update(`onboarding:${purpose}`).digest();
const mac = (key: Buffer, purpose: string, value: string) =>
  createHmac('sha256', subkey(key, purpose)).update(value).digest('base64url');

export function entryToken(key: Buffer, integrationId: string): string {
  return mac(key, 'entry', integrationId);
}

export function isEntryToken(key: Buffer, integrationId: string, token: string): boolean {
  return safeEqual(entryToken(key, integrationId), token);
}

export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

/** `<integration id>.<nonce>.<mac>`: opaque to the partner, which echoes it back. */
export function signState(key: Buffer, integrationId: string, nonce: string): string {
  const body = `${integrationId}.${nonce}`;
  return `${body}.${mac(key, 'state', body)}`;
}

/** The integration and nonce of a state this platform signed, or null. */
export function readState(key: Buffer, state: string): { integrationId: string; nonce: string } | null {
  const parts = state.split('.');
  if (parts.length !== 3 || parts.some((p) => !p)) return null;
  const [integrationId, nonce, given] = parts as [string, string, string];
  if (!safeEqual(mac(key, 'state', `${integrationId}.${nonce}`), given)) return null;
  return { integrationId, nonce };
}
