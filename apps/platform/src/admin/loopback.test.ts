import { describe, expect, it } from 'vitest';
import { isLoopback } from './index.ts';

describe('isLoopback (who may see the admin endpoint)', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.1', false],
    ['192.168.1.20', false],
    ['::ffff:10.0.0.1', false],
    ['fe80::1', false],
    ['1270::1', false],
    [undefined, false],
  ])('%s -> %s', (address, expected) => expect(isLoopback(address)).toBe(expected));
});
