import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHttpServer } from './app.ts';

/** Request logs (on at the default LOG_LEVEL=info) never hold the credentials some URLs carry. */
const lines: { req?: { url: string } }[] = [];
const logger = pino({ level: 'info' }, { write: (s: string) => lines.push(JSON.parse(s)) });
const app = createHttpServer({ logger, bodyLimit: 1024 });
app.get('/onboarding/entry', async () => ({ ok: true }));
let url = '';
beforeAll(async () => {
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => app.close());

it('logs a URL with its token, code, state and signature values redacted, and the rest as sent', async () => {
  await fetch(
    `${url}/onboarding/entry?token=ENTRY-SECRET&code=C0DE&STATE=S7&signature=ab12&expires=9&keep=1`,
  );
  const logged = lines.find((l) => l.req)!.req!.url;
  expect(logged).toBe(
    '/onboarding/entry?token=[redacted]&code=[redacted]&STATE=[redacted]&signature=[redacted]&expires=9&keep=1',
  );
  expect(JSON.stringify(lines)).not.toMatch(/ENTRY-SECRET|C0DE|S7|ab12/);
});
