/** Test aids for the outbox: a programmable partner endpoint and polling. Not used by the platform. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** True once the caller gave up on the request (closed it) before it was answered. */
  aborted(): boolean;
}

/** What the endpoint answers; `hang` keeps the request open until `release()`. */
export type Answer = { status: number; body?: string } | 'hang';

export interface PartnerServer {
  url: string;
  received: ReceivedRequest[];
  /** Answers every request left hanging with this. */
  release(answer?: { status: number; body?: string }): void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 answering with `answer(request, index of the request)`. */
export async function startPartnerServer(
  answer: (req: ReceivedRequest, n: number) => Answer | Promise<Answer>,
): Promise<PartnerServer> {
  const received: ReceivedRequest[] = [];
  const hanging: ((a: { status: number; body?: string }) => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let aborted = false;
    res.on('close', () => {
      if (!res.writableFinished) aborted = true;
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const r = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        aborted: () => aborted,
      };
      received.push(r);
      const reply = (a: { status: number; body?: string }) => {
        if (!res.writable) return;
        res.writeHead(a.status, { 'content-type': 'text/plain' });
        res.end(a.body ?? '');
      };
      const a = await answer(r, received.length - 1);
      if (a === 'hang') hanging.push(reply);
      else reply(a);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    release: (a = { status: 200, body: 'ok' }) => hanging.splice(0).forEach((reply) => reply(a)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// The one waitFor of the suites (re-exported: jobs tests import it from here).
export { waitFor } from '../../test/wait.ts';
