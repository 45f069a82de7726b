/**
 * The guides' examples are part of the contract: every JSON example passes the contract schema it
 * names, every curl example runs against a real platform and gets the answer it says, and the
 * webhook-signature code computes what the platform checks. See "Documentation site" in
 * ARCHITECTURE.md for the conventions.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ERROR_CODES, ErrorBody, type ErrorCode } from '@stream/contracts';
import { HostedErrorBody } from '@stream/contracts/envelopes';
import { DEMO_COMPANY_ID, DEMO_STORE_ID } from '@stream/contracts/apis/hr-menu/demo';
import { grantCompany } from '../../platform/src/hosted/companies.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacHex } from '../../platform/src/http/secrets.ts';
import { verifySignature } from '../../platform/src/webhooks/signature.ts';
import { findPartner } from '../../platform/src/partners/service.ts';
import { sandboxCredentials } from '../../platform/src/sandbox-bootstrap.ts';
import { directCommands } from '../../platform/src/admin/commands.ts';
import { call } from '../../platform/test/http.ts';
import type { TestPlatform } from '../../platform/test/platform.ts';
import {
  activeIntegration,
  bind,
  ingest,
  startOnboardingWorld,
} from '../../platform/src/onboarding/testing.ts';
import { codeBlocks, isCurl, type CodeBlock } from './code-blocks.ts';
import { errorStatusOf, schemaFor } from './schemas.ts';
import { markdownPages } from './pages.ts';

const run = promisify(execFile);
const blocks = markdownPages().flatMap(codeBlocks);
// A pricing example (`pricing-example=<name>`) is a menu, a request and its answer: the pricing
// engine's tests run it (`hosted/pricing`), so it names no single schema.
const jsonBlocks = blocks.filter((b) => b.lang === 'json' && !b.meta['pricing-example']);
const curlBlocks = blocks.filter(isCurl);

describe('JSON examples of the guides', () => {
  it('exist', () => {
    expect(jsonBlocks.length).toBeGreaterThan(0);
  });

  it.each(jsonBlocks.map((b) => [b.where, b] as const))('%s passes its contract schema', (_where, block) => {
    const ref = block.meta.schema;
    expect(typeof ref, 'a JSON example names its schema: ```json schema=<ref>').toBe('string');
    const value = JSON.parse(block.code);
    const result = schemaFor(ref as string).safeParse(value);
    expect(result.success ? [] : result.error.issues).toEqual([]);
    // An error example shows a code the endpoint really answers with that status.
    const status = errorStatusOf(ref as string);
    const hosted = HostedErrorBody.safeParse(value);
    const code = (
      ErrorBody.safeParse(value).success
        ? (value as ErrorBody).error.code
        : hosted.success
          ? hosted.data.messagesDetails[0]!.id
          : undefined
    ) as ErrorCode | undefined;
    if (code) {
      expect(Object.keys(ERROR_CODES)).toContain(code);
      if (status) expect(ERROR_CODES[code].status).toBe(status);
    }
  });
});

/** The sandbox POS, DSP and event provider as the guides use them: base URL, control client, signing identity. */
async function sandboxEnv(platform: TestPlatform): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const kind of ['pos', 'dsp', 'events'] as const) {
    const partner = await findPartner(platform.app.ctx.db, `sandbox-${kind}`);
    const creds =
      partner && (await sandboxCredentials(platform.app.ctx.db, platform.config.encryptionKey, partner));
    if (!creds?.base_url) throw new Error(`no sandbox-${kind}`);
    // The partner's own client (Partner API, and every simulator's control routes), as the sandbox guide's shell set-up.
    const client = { id: creds.client_id, secret: creds.client_secret };
    if (!client.id || !client.secret) throw new Error(`no client for sandbox-${kind}`);
    const prefix = `SANDBOX_${kind.toUpperCase()}`;
    Object.assign(env, {
      [`${prefix}_URL`]: creds.base_url,
      [`${prefix}_CLIENT_ID`]: client.id,
      [`${prefix}_CLIENT_SECRET`]: client.secret,
      // Signed webhooks as the sandbox partner (the order guides).
      [`${prefix}_PARTNER_ID`]: creds.partner_id,
      [`${prefix}_PARTNER_SLUG`]: creds.slug,
      [`${prefix}_WEBHOOK_SECRET`]: creds.webhook_secret,
      // The OAuth client the sandbox POS issued to Stream (its authorize and token examples).
      ...(kind === 'pos'
        ? {
            SANDBOX_POS_OAUTH_CLIENT_ID: creds.oauth_client_id!,
            SANDBOX_POS_OAUTH_CLIENT_SECRET: creds.oauth_client_secret!,
          }
        : {}),
    });
  }
  return env;
}

/** The last HTTP status of a `curl -D` header dump (after any 100 Continue). */
function statusOf(headers: string): number {
  return Number([...headers.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].at(-1)?.[1]);
}

describe('curl examples of the guides, against a platform', () => {
  let platform: TestPlatform;
  let base: Record<string, string>;

  beforeAll(async () => {
    // With the sandbox POS and DSP mounted, so the onboarding examples run end to end.
    const world = await startOnboardingWorld();
    platform = world.platform;
    const partner = await platform.partner({ kind: 'white_label' });
    // The hosted API guides call the demo company's store (seeded with the sandbox).
    await grantCompany(platform.app.ctx.db, DEMO_COMPANY_ID, partner.partner_id);
    const tokens = await call('POST', `${platform.url}/oauth/token`, {
      body: {
        grant_type: 'client_credentials',
        client_id: partner.client_id,
        client_secret: partner.client_secret,
      },
    });
    const org = await call('POST', `${platform.url}/onboarding/org`, {
      token: tokens.body.access_token,
      body: {
        name: 'Example Trattoria',
        provider_id: `merchant-${randomBytes(4).toString('hex')}`,
        user: { email: 'owner@trattoria.example', first_name: 'Luigi', last_name: 'Rossi' },
      },
    });
    expect(org.status).toBe(201);
    // What the onboarding examples build on: active sandbox POS and DSP integrations of the org, and
    // two ingested POS locations, the second already bound to a DSP store.
    const token = tokens.body.access_token;
    const posId = await activeIntegration(world, token, org.body.org_id, 'pos');
    const dspId = await activeIntegration(world, token, org.body.org_id, 'dsp');
    const [free, bound] = await ingest(world, token, posId, ['loc-mission', 'loc-williamsburg']);
    const binding = await bind(world, token, dspId, [
      { pos_location_id: bound!._id, dsp_provider_id: 'store-1002' },
    ]);
    expect(binding.status, binding.text).toBe(200);
    base = {
      STREAM_URL: platform.url,
      CLIENT_ID: partner.client_id,
      CLIENT_SECRET: partner.client_secret,
      WEBHOOK_SECRET: partner.webhook_secret,
      PARTNER_ID: partner.partner_id,
      PARTNER_SLUG: partner.slug,
      ORG_ID: org.body.org_id,
      POS_ONBOARDING_ID: posId,
      DSP_ONBOARDING_ID: dspId,
      LOCATION_ID: free!._id,
      BOUND_LOCATION_ID: bound!._id,
      STORE_ID: String(DEMO_STORE_ID),
      ...(await sandboxEnv(platform)),
    };
  });
  afterAll(() => platform?.stop());

  /** The variables every example may use; tokens are fresh per example (refresh tokens are single use). */
  async function exampleEnv(): Promise<Record<string, string>> {
    const tokens = await call('POST', `${platform.url}/oauth/token`, {
      body: {
        grant_type: 'client_credentials',
        client_id: base.CLIENT_ID,
        client_secret: base.CLIENT_SECRET,
      },
    });
    const token = await call('POST', `${platform.url}/tokens`, {
      token: tokens.body.access_token,
      body: { org_id: base.ORG_ID, token_name: 'Example token', scopes: ['onboarding', 'sso'] },
    });
    return {
      ...base,
      ACCESS_TOKEN: tokens.body.access_token,
      REFRESH_TOKEN: tokens.body.refresh_token,
      TOKEN_ID: token.body.token._id,
      TOKEN_SECRET: token.body.secret,
    };
  }

  it('exist', () => {
    expect(curlBlocks.length).toBeGreaterThan(0);
  });

  it("the sandbox guide's shell set-up gives, from `partners list`, the sandbox variables every example uses", async () => {
    const setup = blocks.filter((b) => b.meta['shell-setup']);
    expect(setup.map((b) => b.where)).toEqual([expect.stringMatching(/sandbox\.mdx:/)]);
    const bin = mkdtempSync(join(tmpdir(), 'docs-npx-'));
    try {
      // `npx stream-platform partners list` prints what the CLI prints: the admin command's answer as JSON.
      const list = await directCommands(
        platform.app.ctx.database,
        platform.config.encryptionKey,
      ).listPartners();
      writeFileSync(join(bin, 'partners.json'), JSON.stringify(list, null, 2));
      writeFileSync(
        join(bin, 'npx'),
        `#!/bin/sh\n[ "$*" = "stream-platform partners list" ] || exit 9\ncat "${join(bin, 'partners.json')}"\n`,
        { mode: 0o755 },
      );
      const { stdout: all } = await run(
        'bash',
        [
          '-c',
          `set -euo pipefail\n${setup[0]!.code}\nfor v in $(compgen -v SANDBOX_); do printf '%s=%s\\n' "$v" "\${!v}"; done`,
        ],
        { env: { PATH: `${bin}:${process.env.PATH}`, HOME: process.env.HOME } },
      );
      const defined = Object.fromEntries(
        all
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      const sandboxVars = Object.fromEntries(Object.entries(base).filter(([k]) => k.startsWith('SANDBOX_')));
      expect(defined).toEqual(sandboxVars);
      // Every SANDBOX_ variable an example uses is one the set-up defines.
      const used = new Set(
        curlBlocks.flatMap((b) => [...b.code.matchAll(/\$\{?(SANDBOX_[A-Z_]+)/g)].map((m) => m[1]!)),
      );
      expect([...used].filter((v) => !(v in defined))).toEqual([]);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it.each(curlBlocks.map((b) => [b.where, b] as const))(
    '%s answers what it says',
    async (_where, block: CodeBlock) => {
      const expected = block.meta.expect;
      expect(
        typeof expected,
        'a curl example names its answer: ```bash expect=<operationId>.<status> (expect=<status> off-contract)',
      ).toBe('string');
      const out = mkdtempSync(join(tmpdir(), 'docs-example-'));
      // The example runs in a folder of its own, so the files it writes (a body to sign) go nowhere else.
      const cwd = mkdtempSync(join(tmpdir(), 'docs-example-cwd-'));
      try {
        // Every curl call's headers and body are kept (the example's own output is left as it is).
        const prelude = [
          'set -euo pipefail',
          // Numbered by the files so far, so calls inside `$(...)` (a subshell) are counted too.
          'curl() { local n; n=$(($(find "$__OUT" -name "b*" | wc -l) + 1)); command curl -sS -D "$__OUT/h$n" "$@" | tee "$__OUT/b$n"; }',
        ].join('\n');
        await run('bash', ['-c', `${prelude}\n${block.code}`], {
          env: { PATH: process.env.PATH, HOME: process.env.HOME, __OUT: out, ...(await exampleEnv()) },
          cwd,
          timeout: 30_000,
        });
        const calls = readdirSync(out).filter((f) => f.startsWith('h')).length;
        expect(calls, 'the example made no request').toBeGreaterThan(0);
        for (let n = 1; n < calls; n++) {
          // A redirect is a step of a flow (OAuth), not a failure.
          expect(statusOf(readFileSync(join(out, `h${n}`), 'utf8')), `request ${n}`).toBeLessThan(400);
        }
        const headers = readFileSync(join(out, `h${calls}`), 'utf8');
        const status = statusOf(headers);
        const body = readFileSync(join(out, `b${calls}`), 'utf8');
        // `expect=<operationId>.<status>`, or `expect=<status>` for what no contract describes (sandbox controls).
        const ref = /^\d{3}$/.test(String(expected)) ? undefined : String(expected);
        expect(`${status} ${body}`).toMatch(new RegExp(`^${ref ? ref.split('.')[1] : expected} `));
        // A JSON answer passes its schema; a file (CSV) or a redirect has none to pass.
        if (ref && body && /^content-type:[^\r\n]*json/im.test(headers)) {
          const result = schemaFor(ref).safeParse(JSON.parse(body));
          expect(result.success ? [] : result.error.issues).toEqual([]);
        }
        // An order example shows what happened to the order, not only that it was taken: its answer's
        // `status` is the one the block names (`outcome=<status>`), and never `failed` unless it names that.
        const answer = /^content-type:[^\r\n]*json/im.test(headers) && body ? JSON.parse(body) : undefined;
        if (block.meta.outcome)
          expect(answer?.status, 'the outcome the guide shows').toBe(block.meta.outcome);
        else if (typeof answer?.status === 'string')
          expect(answer.status, `the outcome the guide shows (${body})`).not.toBe('failed');
        if (block.meta.error) {
          const answer = JSON.parse(body);
          expect(answer.error?.code ?? answer.messagesDetails?.[0]?.id).toBe(block.meta.error);
        }
      } finally {
        rmSync(out, { recursive: true, force: true });
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );
});

describe('webhook signature code of the guides', () => {
  const hmacBlocks = blocks.filter((b) => b.meta.test === 'hmac');
  const vectors = [
    { secret: `whsec_${randomBytes(24).toString('base64url')}`, body: '{"type":"location.catalog.updated"}' },
    { secret: 'whsec_é✓ unicode', body: '{"name":"Crème brûlée","emoji":"🍕"}' },
    { secret: `whsec_${randomBytes(8).toString('hex')}`, body: '' },
  ];

  it('is there in Node.js, Python and shell', () => {
    expect(hmacBlocks.map((b) => b.lang).sort()).toEqual(['bash', 'js', 'python']);
  });

  it('computes and checks the signature the platform verifies (Node.js)', async () => {
    const block = hmacBlocks.find((b) => b.lang === 'js')!;
    const dir = mkdtempSync(join(tmpdir(), 'docs-hmac-'));
    try {
      writeFileSync(join(dir, 'stream-signature.mjs'), block.code);
      const mod = await import(pathToFileURL(join(dir, 'stream-signature.mjs')).href);
      for (const { secret, body } of vectors) {
        const signature = mod.sign(secret, body);
        expect(signature).toBe(hmacHex(secret, body));
        expect(verifySignature(secret, Buffer.from(body), signature)).toBeUndefined();
        expect(mod.verify(secret, Buffer.from(body), signature)).toBe(true);
        expect(mod.verify(secret, Buffer.from(`${body} `), signature)).toBe(false);
        expect(mod.verify(`${secret}x`, Buffer.from(body), signature)).toBe(false);
        expect(mod.verify(secret, Buffer.from(body), `sha256=${signature}`)).toBe(false);
        expect(mod.verify(secret, Buffer.from(body), undefined)).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('computes and checks the signature the platform verifies (Python)', async () => {
    const block = hmacBlocks.find((b) => b.lang === 'python')!;
    const dir = mkdtempSync(join(tmpdir(), 'docs-hmac-'));
    try {
      writeFileSync(join(dir, 'stream_signature.py'), block.code);
      const harness = `
import json, sys
from stream_signature import sign, verify
out = []
for v in json.load(sys.stdin):
    body = v["body"].encode("utf-8")
    sig = sign(v["secret"], body)
    out.append([sig, verify(v["secret"], body, sig), verify(v["secret"], body + b" ", sig),
                verify(v["secret"], body, "sha256=" + sig), verify(v["secret"], body, None)])
print(json.dumps(out))`;
      const child = execFile('python3', ['-c', harness], { cwd: dir });
      child.stdin!.end(JSON.stringify(vectors));
      let stdout = '';
      child.stdout!.on('data', (chunk) => (stdout += chunk));
      const code = await new Promise((resolve) => child.on('exit', resolve));
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual(
        vectors.map((v) => [hmacHex(v.secret, v.body), true, false, false, false]),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('computes the signature the platform verifies (openssl)', async () => {
    const block = hmacBlocks.find((b) => b.lang === 'bash')!;
    for (const { secret, body } of vectors) {
      const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${block.code}`], {
        env: { PATH: process.env.PATH, BODY: body, WEBHOOK_SECRET: secret },
      });
      expect(stdout.trim()).toBe(hmacHex(secret, body));
    }
  });
});
