import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';

/**
 * Slow or stalled clients are cut off (REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS),
 * seen from a raw socket. Short timeouts here; without them Node would keep these sockets for
 * minutes and the test would run into vitest's limit instead.
 */
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform(
    { http: { requestTimeoutMs: 800, headersTimeoutMs: 400, keepAliveTimeoutMs: 300 } },
    {
      register: (app) => {
        app.get('/test/slow', async () => {
          await new Promise((r) => setTimeout(r, 1_500)); // longer than REQUEST_TIMEOUT_MS
          return { slow: true };
        });
      },
    },
  );
});
afterAll(() => platform?.stop());

/** Writes `chunks` on a fresh connection, then sends nothing more; answers all it read once the server closed. */
function sendAndWaitForClose(chunks: string[]): Promise<string> {
  const { port } = new URL(platform.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => chunks.forEach((c) => socket.write(c)));
    let received = '';
    socket.on('data', (d) => (received += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

describe('request timeouts', () => {
  it('a request whose body never arrives in full is answered 408 and its connection closed', async () => {
    const body = '{"grant_type":"client_credentials","client_id":"cli_x","client_secret":"sk_x"}';
    const received = await sendAndWaitForClose([
      'POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${body.length + 100}\r\n\r\n`,
      body, // 100 bytes short of what Content-Length promised
    ]);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).toEqual({
      error: {
        code: 'request_timeout',
        message: 'The request did not arrive in full in time; send it again in one go.',
      },
    });
    // (and the socket was closed: sendAndWaitForClose resolved)
  });

  it('headers that never end are answered 408 and the connection closed', async () => {
    const received = await sendAndWaitForClose(['GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: a']);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toMatch(/"code":"request_timeout"/);
  });

  it('bytes that are not HTTP are answered 400 in the error body, and the connection closed', async () => {
    const received = await sendAndWaitForClose(['HELLO THERE\r\n\r\n']);
    expect(received).toMatch(/^HTTP\/1\.1 400 /);
    expect(received).toMatch(/"code":"invalid_request"/);
  });

  it('a request without Host, or with an Expect it cannot meet, is answered in the error body', async () => {
    const noHost = await sendAndWaitForClose(['GET /.well-known/jwks.json HTTP/1.1\r\nConnection: close\r\n\r\n']);
    expect(noHost).toMatch(/^HTTP\/1\.1 400 /);
    expect(noHost).toMatch(/"code":"invalid_request","message":"HTTP\/1\.1 needs a Host header; send one\."/);
    const http10 = await sendAndWaitForClose(['GET /healthz HTTP/1.0\r\n\r\n']);
    expect(http10).toMatch(/^HTTP\/1\.1 200 /);
    const expect417 = await sendAndWaitForClose([
      'POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nExpect: zzz\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    ]);
    expect(expect417).toMatch(/^HTTP\/1\.1 417 /);
    // Its own code at its status (invalid_request is a 400), in the envelope of the path's API.
    expect(expect417).toMatch(/"code":"expectation_failed"/);
    const hosted417 = await sendAndWaitForClose([
      'POST /PriceOrder HTTP/1.1\r\nHost: localhost\r\nExpect: zzz\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    ]);
    expect(hosted417).toMatch(/^HTTP\/1\.1 417 /);
    expect(JSON.parse(hosted417.slice(hosted417.indexOf('\r\n\r\n') + 4))).toEqual({
      data: null,
      message: 'Expect: zzz is not supported; send the request without it.',
      messagesDetails: [{ id: 'expectation_failed', message: 'Expect: zzz is not supported; send the request without it.', messageType: 'ERROR' }],
    });
  }); // prettier-ignore

  it('an idle keep-alive connection is closed after its answer', async () => {
    const received = await sendAndWaitForClose(['GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n']);
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toMatch(/\r\nconnection: keep-alive\r\n/i); // the server offered to keep it, then closed it
  });

  it('a slow handler is not cut off: only receiving the request is timed', async () => {
    // The request arrives at once; the answer takes longer than REQUEST_TIMEOUT_MS.
    const res = await fetch(`${platform.url}/test/slow`);
    expect([res.status, await res.json()]).toEqual([200, { slow: true }]);
  });
});
