import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decrypt, encrypt } from './secrets.ts';

describe('decrypt, with its opened values kept', () => {
  const key = randomBytes(32);

  it('opens a sealed value again to the same text', () => {
    const sealed = encrypt(key, 'whsec_one');
    expect(decrypt(key, sealed)).toBe('whsec_one');
    expect(decrypt(key, sealed)).toBe('whsec_one');
  });

  it('still refuses a tampered value and another key, after the genuine one was opened', () => {
    const sealed = encrypt(key, 'whsec_two');
    expect(decrypt(key, sealed)).toBe('whsec_two');
    const parts = sealed.split('.');
    const data = Buffer.from(parts[3]!, 'base64url');
    data[0] = data[0]! ^ 1;
    const tampered = [...parts.slice(0, 3), data.toString('base64url')].join('.');
    expect(() => decrypt(key, tampered)).toThrow();
    expect(() => decrypt(randomBytes(32), sealed)).toThrow();
  });

  it('opens every value right past what it keeps (the oldest forgotten, then opened anew)', () => {
    const values = Array.from({ length: 1_200 }, (_, i) => [`rt_${i}`, encrypt(key, `rt_${i}`)] as const);
    for (const [plain, sealed] of values) expect(decrypt(key, sealed)).toBe(plain);
    for (const [plain, sealed] of values) expect(decrypt(key, sealed)).toBe(plain);
  });
});
