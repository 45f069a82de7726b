import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import {
  isJsonContentType,
  verifySignature,
  type SignatureProblem,
} from '@stream/contracts/server/signature';
import { CodedError } from '@stream/contracts/errors';
import { parseJsonBody } from '@stream/contracts/server/input';
import type { CertificationKind } from '@stream/contracts/certification';
import { parseJson } from '../connectors/index.ts';
import { acceptedAnswer, schemaProblem } from './answer.ts';
import type { WebhookRefusal } from '../db/schema/certification.ts';
import { asClause } from '@stream/contracts/issue-sentences';

/**
 * Where a certification run takes what the partner sends it: the webhooks it is asked to send
 * (signature checked against the webhook secret) and the downloads of the menu files it is told of.
 * The CLI listens on a port of its own (`listenInbox`); a run the platform makes keeps them in its
 * database (`certification/db-inbox.ts`).
 */
export interface ReceivedWebhook {
  /** Milliseconds since the epoch. */
  at: number;
  path: string;
  raw: string;
  /** The body as JSON, undefined when it is not. */
  body: unknown;
  signature: 'valid' | SignatureProblem;
  /** Why it was refused as the platform refuses it, before its signature (its Content-Type, its JSON). */
  refused?: WebhookRefusal;
}

/**
 * A signed body the production route's schema refuses (`schemaProblem`): 400 `validation_failed`,
 * with production's message and details.
 */
export function schemaRefusal(kind: CertificationKind, body: unknown): WebhookRefusal | undefined {
  const problem = schemaProblem(kind, body);
  if (!problem) return undefined;
  return {
    status: 400,
    code: 'validation_failed',
    reason: asClause(problem.message),
    ...problem,
  };
}

/** A webhook's bytes as read (`readBoundedBody`): `raw` is empty when `size` is past `limit`. */
export interface WebhookBytes {
  raw: Buffer;
  size: number;
  limit: number;
}

/**
 * Reads a body up to `limit` bytes, as the platform's parsers would. Past it the bytes are counted,
 * not kept (the platform refuses the body 413; the inbox records by how much): a declared
 * Content-Length past it is taken at its word and the body left unread.
 */
export function readBoundedBody(
  stream: Readable,
  limit: number,
  contentLength: string | undefined,
): Promise<WebhookBytes> {
  const declared = Number(contentLength);
  if (declared > limit) {
    stream.resume(); // discarded
    return Promise.resolve({ raw: Buffer.alloc(0), size: declared, limit });
  }
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) chunks = [];
      else chunks.push(c);
    });
    stream.on('end', () =>
      resolve({ raw: size > limit ? Buffer.alloc(0) : Buffer.concat(chunks), size, limit }),
    );
    stream.on('error', reject);
  });
}

/**
 * Reads a webhook's body as the platform reads it (`installBodyParsers`, then a webhook's schema):
 * another Content-Type is 415, a body past the limit 413, one that is empty or not JSON 400, text
 * PostgreSQL cannot store 400. Both inboxes (the CLI's, a run's route) refuse with this, so both say
 * the same.
 */
export function readWebhookBody(
  contentType: string | undefined,
  { raw, size, limit }: WebhookBytes,
): { body: unknown; refused?: WebhookRefusal } {
  // The body as far as it reads, so a check can still tell which webhook type was refused.
  const refuse = (status: number, code: WebhookRefusal['code'], reason: string) => ({
    body: parseJson(raw.toString('utf8')),
    refused: { status, code, reason },
  });
  if (!isJsonContentType(contentType)) {
    return refuse(
      415,
      'unsupported_media_type',
      `Content-Type ${contentType ?? '(none)'}: send the body as application/json`,
    );
  }
  if (size > limit) {
    return refuse(
      413,
      'payload_too_large',
      `the body is ${size - limit} bytes over the ${limit}-byte limit: send at most ${limit} bytes`,
    );
  }
  if (raw.length === 0) return refuse(400, 'invalid_json', "the body is empty: send the webhook's JSON");
  const notJson = 'the body is not valid JSON: send the JSON you sign, as it is';
  try {
    return { body: parseJsonBody(raw) };
  } catch (err) {
    if (!(err instanceof CodedError) || (err.code !== 'validation_failed' && err.code !== 'invalid_json')) {
      return refuse(400, 'invalid_json', notJson);
    }
    // Answered in production's words and details (`body.note: …`, a byte order mark named); the
    // check's clause says the same, but for a parser's own message, which says less than `notJson`.
    const own = err.code === 'invalid_json' && err.message.startsWith('The body is not valid JSON');
    const reason = own ? notJson : `${err.message[0]!.toLowerCase()}${asClause(err.message.slice(1))}`;
    const { body, refused } = refuse(400, err.code, reason);
    return {
      body,
      // A parser's message quotes the body, cut by UTF-16 unit ("Unexpected token '\ud897'"): a lone
      // surrogate or a NUL, which PostgreSQL cannot keep, is kept as U+FFFD, as the body is.
      refused: {
        ...refused,
        message: err.message.replace(/\0|\p{Cs}/gu, '\ufffd'),
        ...(err.details ? { details: err.details } : {}),
      },
    };
  }
}

/** The refusal as the error message the inbox answers with: `The body is not valid JSON.` */
export const refusalMessage = (r: WebhookRefusal) =>
  r.message ?? `${r.reason[0]!.toUpperCase()}${r.reason.slice(1)}.`;

export interface Inbox {
  /** The URL to give the partner for its webhooks. */
  readonly webhookUrl: string;
  /** The `redirect_uri` of the OAuth checks (never followed: the runner reads the redirect). */
  readonly redirectUri: string;
  /** How to get `redirectUri` registered with the partner's test client, for a refused authorize. */
  readonly redirectHelp: string;
  /** The first webhook received at or after `since` that `match` accepts, or undefined after `waitMs`. */
  next(
    match: (w: ReceivedWebhook) => boolean,
    since: number,
    waitMs: number,
  ): Promise<ReceivedWebhook | undefined>;
  /** Serves `body` as JSON at a fresh URL; `downloads()` counts the GETs of it so far. */
  serveFile(body: unknown): Promise<{ url: string; downloads(): Promise<number> }>;
  close(): Promise<void>;
}

/** The platform's default body limit (`BODY_LIMIT`). */
const MAX_BODY = 1024 * 1024;

/**
 * A small HTTP server on `host:port` (port 0: any free one). `publicUrl` is the address to give the
 * partner when it differs from the one listened on (a tunnel, a container's host name). It answers
 * each webhook as the production route of `kind` answers it (`answer.ts`).
 */
export async function listenInbox(opts: {
  kind: CertificationKind;
  secret: string;
  host?: string;
  port?: number;
  publicUrl?: string;
}): Promise<Inbox> {
  const received: ReceivedWebhook[] = [];
  const salt = randomBytes(12).toString('hex');
  const files = new Map<string, { body: string; downloads: number }>();
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const answerText = (status: number, text: string) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      const answer = (status: number, body: unknown) => answerText(status, JSON.stringify(body));
      const file = req.method === 'GET' ? files.get(path) : undefined;
      if (file) {
        file.downloads += 1;
        return answerText(200, file.body);
      }
      if (req.method !== 'POST' || !path.startsWith('/webhooks')) {
        return answer(404, { error: { code: 'not_found', message: `Nothing at ${req.method} ${path}.` } });
      }
      const bytes = await readBoundedBody(req, MAX_BODY, req.headers['content-length']);
      const { raw } = bytes;
      const problem = verifySignature(opts.secret, raw, req.headers['stream-webhook-signature']);
      const read = readWebhookBody(req.headers['content-type'], bytes);
      const { body } = read;
      // As production: the signature is checked before the body against its route's schema.
      const refused = read.refused ?? (problem ? undefined : schemaRefusal(opts.kind, body));
      const earlier = received.filter((w) => !w.refused && w.signature === 'valid').map((w) => w.body);
      received.push({
        at: Date.now(),
        path,
        raw: raw.toString('utf8'),
        body,
        signature: problem ?? 'valid',
        ...(refused ? { refused } : {}),
      });
      for (const wake of waiters) wake();
      if (refused) {
        const { code, details } = refused;
        return answer(refused.status, {
          error: { code, message: refusalMessage(refused), ...(details ? { details } : {}) },
        });
      }
      if (problem) {
        return answer(401, {
          error: { code: problem, message: 'Stream-Webhook-Signature is not the HMAC of this body.' },
        });
      }
      const accepted = acceptedAnswer(opts.kind, body, { salt, earlier });
      if (accepted.body === undefined) return res.writeHead(accepted.status).end();
      return answer(accepted.status, accepted.body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const base = (opts.publicUrl ?? `http://${opts.host ?? '127.0.0.1'}:${port}`).replace(/\/+$/, '');

  return {
    webhookUrl: `${base}/webhooks`,
    redirectUri: `${base}/oauth/callback`,
    redirectHelp:
      opts.port || opts.publicUrl
        ? 'register it with the OAuth client of your test build'
        : 'the kit listens on a random port unless run with --listen HOST:PORT (and --public-url): register the redirect_uri that gives with the OAuth client of your test build',
    async next(match, since, waitMs) {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const found = received.find((w) => w.at >= since && match(w));
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) return undefined;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, left);
          function done() {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          }
          waiters.add(done);
        });
      }
    },
    async serveFile(body) {
      const path = `/menu-files/${randomBytes(12).toString('hex')}.json`;
      const entry = { body: JSON.stringify(body), downloads: 0 };
      files.set(path, entry);
      return { url: `${base}${path}`, downloads: async () => entry.downloads };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
