/** PostgreSQL unique_violation (23505), through drizzle's error wrapping (both drivers). */
export function isUniqueViolation(err: unknown): boolean {
  for (let e = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

const CONNECTION_LOST_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Connection ended)/;

/**
 * The database connection dropped (a server restart, a failover, `pg_terminate_backend`): SQLSTATE
 * class 08 or 57P01-57P03, or the driver's own words for a closed socket. The request may simply be
 * sent again, so it is answered 503, not 500.
 */
export function isConnectionLost(err: unknown): boolean {
  for (let e = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (/^08/.test(code) || /^57P0[123]$/.test(code))) return true;
    if (code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'EPIPE') return true;
    if (typeof message === 'string' && CONNECTION_LOST_MESSAGES.test(message)) return true;
  }
  return false;
}
