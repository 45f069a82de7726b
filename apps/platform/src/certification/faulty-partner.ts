import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hmacHex } from '@stream/contracts/server/signature';

/**
 * A deliberately broken partner for the certification tests: a proxy in front of a simulator that
 * breaks one thing, the way a partner's own implementation would: a wrong status, a missing field,
 * a slow answer, a webhook with a bad signature or a wrong body. Its webhooks are broken on their way
 * out: the trigger's `webhook_url` is pointed at the proxy, which spoils and forwards them.
 */
export interface Fault {
  /** Which of the partner's answers (or, for `webhook`, which webhook type) to break. */
  method?: string;
  path?: string;
  /** Replace the status of the answer. */
  status?: (status: number) => number;
  /** Rewrite the answer's JSON body. */
  answer?: (body: any) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Hold the answer this long. */
  delayMs?: number;
  /** Answer this without asking the partner (a string body as it is). */
  short?: { status: number; body: unknown; headers?: Record<string, string> };
  /** Sign the request with a valid signature before forwarding (a partner that ignores signatures). */
  resign?: string;
  /** Refuse (400) a request without this header, as a partner that requires it. */
  needsHeader?: string;
  /** Rewrite the request's JSON body before the partner reads it (headers lower-case). */
  request?: (body: any, headers: Record<string, string>) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Break only requests whose body `type` matches (for the trigger: the webhook asked for). */
  type?: RegExp;
  /** Break nothing until a request whose body `type` is this went through (a partner with state). */
  after?: string;
  /**
   * A partner with state: sees every request first (its path and JSON body) and answers `short`'s
   * way when it returns an answer, else lets the rest of the fault apply.
   */
  decide?: (path: string, body: any) => { status: number; body: unknown } | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Break the partner's webhook of this type: rewrite its body and/or spoil its signature. */
  webhook?: {
    type: string;
    body?: (body: any) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
    /** Send these bytes instead (signed). */
    raw?: string;
    contentType?: string;
    badSignature?: boolean;
  };
}

const read = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const jsonOfRaw = (raw: Buffer): any => {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
};
const typeOfRaw = (raw: Buffer): unknown => (jsonOfRaw(raw) as { type?: unknown } | undefined)?.type;

const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export async function faultyPartner(
  target: string,
  fault: Fault,
  secret: string,
): Promise<{ url: string; close(): Promise<void> }> {
  let self = '';
  let armed = !fault.after;
  const server = createServer((req, res) => {
    void (async () => {
      let raw = await read(req);
      const path = (req.url ?? '/').split('?')[0]!;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (!HOP.has(k) && typeof v === 'string') headers[k] = v;

      // A webhook of the partner on its way to the runner's inbox.
      if (path === '/__relay') {
        const to = new URL(req.url!, 'http://x').searchParams.get('to')!;
        let body = raw.toString('utf8');
        const parsed = JSON.parse(body);
        const w = fault.webhook;
        if (w && parsed.type === w.type) {
          if (w.body) body = JSON.stringify(w.body(parsed));
          if (w.raw !== undefined) body = w.raw;
          if (w.contentType) headers['content-type'] = w.contentType;
          headers['stream-webhook-signature'] = w.badSignature
            ? hmacHex('not-the-secret', body)
            : hmacHex(secret, body);
        }
        const out = await fetch(to, { method: 'POST', headers, body });
        res.writeHead(out.status, { 'content-type': 'application/json' }).end(await out.text());
        return;
      }

      const decided = fault.decide?.(path, jsonOfRaw(raw));
      if (decided) {
        res
          .writeHead(decided.status, { 'content-type': 'application/json' })
          .end(JSON.stringify(decided.body));
        return;
      }
      const hit =
        armed &&
        (!fault.method || fault.method === req.method) &&
        (!fault.path || fault.path === path) &&
        (!fault.type || fault.type.test(String(typeOfRaw(raw))));
      if (fault.after && typeOfRaw(raw) === fault.after) armed = true;
      if (path === '/stream-certification/v1/webhooks' && fault.webhook) {
        const trigger = JSON.parse(raw.toString('utf8'));
        trigger.webhook_url = `${self}/__relay?to=${encodeURIComponent(trigger.webhook_url)}`;
        raw = Buffer.from(JSON.stringify(trigger));
        headers['x-stream-signature'] = hmacHex(secret, raw);
      }
      if (hit && fault.needsHeader && !headers[fault.needsHeader]) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `${fault.needsHeader} is required` }));
        return;
      }
      if (hit && fault.request) {
        const body = fault.request(raw.length ? JSON.parse(raw.toString('utf8')) : undefined, headers);
        if (raw.length) raw = Buffer.from(JSON.stringify(body));
      }
      if (hit && fault.resign) headers['x-stream-signature'] = hmacHex(fault.resign, raw);
      if (hit && fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
      if (hit && fault.short) {
        const { status, body, headers: extra } = fault.short;
        res
          .writeHead(status, { 'content-type': 'application/json', ...extra })
          .end(typeof body === 'string' ? body : JSON.stringify(body));
        return;
      }
      const out = await fetch(`${target}${req.url}`, {
        method: req.method!,
        headers,
        redirect: 'manual',
        ...(raw.length && req.method !== 'GET' ? { body: new Uint8Array(raw) } : {}),
      });
      let text = await out.text();
      if (hit && fault.answer) text = JSON.stringify(fault.answer(JSON.parse(text)));
      const answerHeaders: Record<string, string> = {
        'content-type': out.headers.get('content-type') ?? 'application/json',
      };
      const location = out.headers.get('location');
      if (location) answerHeaders.location = location;
      res.writeHead(hit && fault.status ? fault.status(out.status) : out.status, answerHeaders).end(text);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
