import { createHmac } from 'node:crypto';
import { safeEqual } from '../http/secrets.ts';

/**
 * The `download_url` of a published menu file: the platform's URL of the publication, valid for a
 * day, signed with a key derived from the encryption key (so any process can check it, and a link
 * cannot be made up or extended).
 */
export const MENU_FILE_TTL_MS = 24 * 60 * 60_000;

const signatureOf = (key: Buffer, publicationId: string, expires: number) =>
  createHmac('sha256', createHmac('sha256', key).update('stream/menu-files/v1').digest())
    .update(`${publicationId}.${expires}`)
    .digest('hex');

export function menuFileUrl(publicUrl: string, key: Buffer, publicationId: string, now = Date.now()): string {
  const expires = now + MENU_FILE_TTL_MS;
  return `${publicUrl}/menu-files/${publicationId}?expires=${expires}&signature=${signatureOf(key, publicationId, expires)}`;
}

/** Whether the link is one the platform made and has not expired. */
export function validMenuFileLink(
  key: Buffer,
  publicationId: string,
  expires: number,
  signature: string,
): boolean {
  return expires > Date.now() && safeEqual(signature, signatureOf(key, publicationId, expires));
}
