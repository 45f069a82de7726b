import { describe, expect, it } from 'vitest';
import { withAbsoluteServers } from '../src/components/ApiReference/servers.ts';

describe('withAbsoluteServers (what Redoc is given)', () => {
  const partner = {
    url: '{partner_base_url}',
    variables: { partner_base_url: { default: 'https://partner.example.com' } },
  };
  const spec = {
    openapi: '3.1.0',
    servers: [{ url: 'http://localhost:8080' }],
    paths: { '/event': { post: { operationId: 'x', servers: [partner] }, servers: [partner] } },
  };

  it('fills in the defaults of server URLs that are not absolute, at every level', () => {
    const shown = withAbsoluteServers(spec);
    expect(shown.servers).toEqual([{ url: 'http://localhost:8080' }]);
    expect(shown.paths['/event'].post.servers[0]!.url).toBe('https://partner.example.com');
    expect(shown.paths['/event'].servers[0]!.url).toBe('https://partner.example.com');
  });

  it('leaves the document itself untouched, and a URL it cannot make absolute as it is', () => {
    withAbsoluteServers(spec);
    expect(spec.paths['/event'].post.servers[0]!.url).toBe('{partner_base_url}');
    const relative = withAbsoluteServers({ servers: [{ url: '/v1' }] });
    expect(relative.servers).toEqual([{ url: '/v1' }]);
  });
});
