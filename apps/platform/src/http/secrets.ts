import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { BoundedMap } from '../shared/bounded-map.ts';

// HMAC signing and constant-time comparison are shared with the sandbox (one implementation).
export { hmacHex, safeEqual } from '@stream/contracts/server/signature';

/** A URL-safe random secret with a prefix naming what it is (`sk_`, `whsec_`, `rt_`). */
export function newSecret(prefix: string, bytes = 32): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** AES-256-GCM; the result is `v1.<iv>.<tag>.<ciphertext>` in base64url, safe in a text column. */
export function encrypt(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/**
 * Every order opens the same few sealed values again (its DSP's webhook secret, its merchants'
 * tokens), at about 60 µs each on a slow host: each is opened once per key and kept, at most
 * OPENED_MAX per key, the oldest forgotten first. A rotated secret or refreshed token is sealed
 * anew (a new IV), so a kept value is never stale; a tampered one is a new string and is checked.
 */
const opened = new WeakMap<Buffer, BoundedMap<string, string>>();
const OPENED_MAX = 1000;

export function decrypt(key: Buffer, sealed: string): string {
  let known = opened.get(key);
  const hit = known?.get(sealed);
  if (hit !== undefined) return hit;
  const plaintext = unseal(key, sealed);
  if (!known) opened.set(key, (known = new BoundedMap(OPENED_MAX)));
  known.set(sealed, plaintext);
  return plaintext;
}

function unseal(key: Buffer, sealed: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('Unrecognised encrypted value');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
