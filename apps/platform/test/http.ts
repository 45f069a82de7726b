/** A response as a test looks at it: status, headers, and the body parsed when it is JSON. */
export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface CallOptions {
  /** A value is sent as JSON; a string or Buffer is sent as the exact bytes. */
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
}

/** One HTTP call over the real network stack, as a partner would make it. */
export async function call(method: string, url: string, opts: CallOptions = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (opts.body !== undefined) {
    body =
      typeof opts.body === 'string'
        ? opts.body
        : Buffer.isBuffer(opts.body)
          ? new Uint8Array(opts.body)
          : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = undefined;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, body: parsed };
}
