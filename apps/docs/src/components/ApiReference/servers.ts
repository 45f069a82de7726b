interface Server {
  url: string;
  variables?: Record<string, { default?: string }>;
}

/** `{partner_base_url}` with its default filled in; a URL that is still not absolute stays as it is. */
function expand(server: Server): Server {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(server.url)) return server;
  const url = server.url.replace(/\{([^}]+)\}/g, (m, name: string) => server.variables?.[name]?.default ?? m);
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? { ...server, url } : server;
}

const expandAll = (servers: unknown) =>
  Array.isArray(servers) ? servers.map((s: Server) => expand(s)) : servers;

/**
 * The document as Redoc should show it: Redoc resolves a server URL that is not absolute (such as
 * the partner-side `{partner_base_url}`) against the page's address, which differs between the server
 * render and the browser (a hydration mismatch) and shows a URL on this site. Filling in the variables'
 * defaults shows the example base URL instead. Only the rendering uses this; the download is untouched.
 */
export function withAbsoluteServers<T extends object>(spec: T): T {
  const doc = spec as { servers?: unknown; paths?: Record<string, Record<string, unknown>> };
  const paths = Object.fromEntries(
    Object.entries(doc.paths ?? {}).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([key, value]) => {
          if (key === 'servers') return [key, expandAll(value)];
          const op = value as { servers?: unknown } | null;
          return [
            key,
            op && typeof op === 'object' && 'servers' in op
              ? { ...op, servers: expandAll(op.servers) }
              : value,
          ];
        }),
      ),
    ]),
  );
  return {
    ...spec,
    ...(doc.servers ? { servers: expandAll(doc.servers) } : {}),
    ...(doc.paths ? { paths } : {}),
  };
}
