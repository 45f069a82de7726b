import pg from 'pg';

/**
 * With a PostgreSQL URL: a fresh database on that server (so every run starts from the same empty
 * tables and a signing key made with this run's encryption key), and how to drop it;
 * `BENCH_DATABASE=reuse` runs on the database of the URL itself. Without a URL: undefined (PGlite).
 */
export async function scratchDatabase(
  url: string | undefined,
): Promise<{ url: string; drop: () => Promise<void> } | undefined> {
  if (!url) return undefined;
  if (process.env.BENCH_DATABASE === 'reuse') return { url, drop: async () => {} };
  const name = `stream_bench_${process.pid}_${Date.now()}`;
  const admin = async (statement: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return { url: scratch.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}
