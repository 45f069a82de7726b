import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hasSecrets, REDACTED, redactSecrets, secret } from './secret.ts';

describe('secret fields', () => {
  const Token = secret(z.string());
  const Answer = z.object({
    access_token: Token,
    id: z.string(),
    nested: z.array(z.object({ code: Token })),
  });

  it('redacts every marked field at any depth and keeps the rest', () => {
    expect(
      redactSecrets(Answer, { access_token: 'at', id: 'm1', nested: [{ code: 'c' }], extra: 1 }),
    ).toEqual({
      access_token: REDACTED,
      id: 'm1',
      nested: [{ code: REDACTED }],
      extra: 1,
    });
  });

  it('knows which schemas hold no secret, so their values are left as they are', () => {
    const Plain = z.object({ id: z.string(), items: z.array(z.object({ name: z.string() })) });
    const value = { id: 'x', items: [{ name: 'taco' }] };
    expect(hasSecrets(Plain)).toBe(false);
    expect(redactSecrets(Plain, value)).toBe(value);
    expect(hasSecrets(Answer)).toBe(true);
    expect(hasSecrets(Answer.optional())).toBe(true);
  });

  it('finds a secret behind a recursive schema, whichever branch is asked first', () => {
    interface Node {
      child?: Node;
      leaf?: { key: string };
    }
    const NodeSchema: z.ZodType<Node> = z.lazy(() => z.object({ child: NodeSchema.optional(), leaf: Leaf }));
    const Leaf = z.object({ key: Token }).optional();
    const Holder = z.object({ tree: NodeSchema });
    expect(hasSecrets(Holder)).toBe(true);
    expect(hasSecrets(NodeSchema)).toBe(true);
    expect(redactSecrets(Holder, { tree: { child: { leaf: { key: 'k' } } } })).toEqual({
      tree: { child: { leaf: { key: REDACTED } } },
    });
  });
});
