import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useIssueSentences } from './issue-sentences.ts';

useIssueSentences();

const messageOf = (schema: z.ZodType, input: unknown) => schema.safeParse(input).error?.issues[0]?.message;

describe('Zod issues as sentences saying what to send', () => {
  it.each<[string, z.ZodType, unknown, string]>([
    ['a missing field', z.object({ a: z.number() }), {}, 'is required but missing; send a number.'],
    ['a missing object', z.object({ a: z.object({}) }), {}, 'is required but missing; send an object.'],
    ['a wrong type', z.string(), 42, 'must be a string, not a number.'],
    ['null', z.string(), null, 'must be a string, not null.'],
    ['an array for an object', z.object({}), [], 'must be an object, not an array.'],
    ['a fraction for an integer', z.number().int(), 1.5, 'must be a whole number, not 1.5.'],
    ['a number too large to hold (1e309 in JSON)', z.number(), JSON.parse('1e309'), 'must be a number; this one is too large to hold.'],
    ['a whole number too large to hold (Zod checks it is a number first)', z.number().int(), JSON.parse('-1e309'), 'must be a number; this one is too large to hold.'],
    ['an empty string', z.string().min(1), '', 'must not be empty.'],
    ['a short string', z.string().min(3), 'ab', 'must be at least 3 characters long.'],
    ['a long string', z.string().max(64), 'x'.repeat(65), 'must be at most 64 characters long.'],
    ['an empty list', z.array(z.string()).min(1), [], 'must have at least one item.'],
    ['a long list', z.array(z.string()).max(2), ['a', 'b', 'c'], 'must have at most 2 items.'],
    ['a small number', z.number().min(0), -1, 'must be at least 0.'],
    ['a large number', z.number().max(100), 101, 'must be at most 100.'],
    ['not more than', z.number().positive(), 0, 'must be more than 0.'],
    ['an option', z.enum(['pickup', 'delivery']), 'walk', 'must be one of "pickup", "delivery".'],
    ['a literal', z.literal('bearer'), 'basic', 'must be "bearer".'],
    ['an unknown key', z.strictObject({ a: z.string() }), { a: 'x', b: 1 }, 'has a field it does not take: b; leave it out.'],
    ['a multiple', z.number().multipleOf(5), 7, 'must be a multiple of 5.'],
    ['an e-mail', z.email(), 'ada', 'must be an e-mail address, such as ada@example.com.'],
    ['a union of types', z.union([z.string(), z.array(z.string())]), 4, 'must be a string or an array, not a number.'],
    ['a union of types, missing', z.object({ id: z.union([z.string(), z.number().int()]) }), {}, 'is required but missing; send a string or a number.'],
    ['a fraction for a string or a whole number', z.union([z.string(), z.number().int()]), 1.5, 'must be a string or a whole number, not a number.'],
    ['a kind missing', z.discriminatedUnion('grant_type', [z.object({ grant_type: z.literal('authorization_code') }), z.object({ grant_type: z.literal('refresh_token') })]), {}, 'is required but missing; send one of "authorization_code", "refresh_token".'],
    ['a kind not known', z.discriminatedUnion('grant_type', [z.object({ grant_type: z.literal('authorization_code') }), z.object({ grant_type: z.literal('refresh_token') })]), { grant_type: 'password' }, 'must be one of "authorization_code", "refresh_token".'],
    ['a union of shapes', z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]), { c: 1 }, 'matches none of the forms this field takes (see the reference).'],
    ['a pattern', z.string().regex(/^[a-z]+$/), 'A1', 'must match the pattern /^[a-z]+$/.'],
    ['a date-time with an offset', z.iso.datetime({ offset: true }), '2026-12-01 18:31', 'must be a date-time with its offset (or Z), such as 2026-12-01T18:30:00-05:00.'],
    ['a UTC date-time', z.iso.datetime(), '2026-12-01T18:31:00+01:00', 'must be a date-time in UTC, ending in Z, such as 2026-12-01T23:30:00Z.'],
    ['a date', z.iso.date(), '12/01/2026', 'must be a date as YYYY-MM-DD, such as 2026-12-01.'],
    ['a time', z.iso.time(), '6pm', 'must be a time as HH:mm or HH:mm:ss, such as 18:30.'],
  ])('%s', (_, schema, input, sentence) => {
    expect(messageOf(schema, input)).toBe(sentence);
  }); // prettier-ignore

  it("keeps a schema's own message", () => {
    expect(messageOf(z.string().min(1, 'name the organisation'), '')).toBe('name the organisation');
  });
});
