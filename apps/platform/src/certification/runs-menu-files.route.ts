import type { FastifyInstance } from 'fastify';
import { and, eq, sql } from 'drizzle-orm';
import { downloadCertificationMenuFile } from '@stream/contracts/apis/partner/certification';
import { certificationFiles } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { mount } from '../http/route.ts';

/** GET /certification/runs/{run_id}/menu-files/{file_id}: a DSP run's menu file, each download counted. */
export function registerRunMenuFilesRoute(app: FastifyInstance): void {
  mount(app, downloadCertificationMenuFile, async (req) => {
    const [file] = await app.ctx.db
      .update(certificationFiles)
      .set({ downloads: sql`${certificationFiles.downloads} + 1` })
      .where(
        and(eq(certificationFiles.id, req.params.file_id), eq(certificationFiles.runId, req.params.run_id)),
      )
      .returning({ body: certificationFiles.body });
    if (!file) throw new ApiError('certification_run_not_found', 'No such menu file of a certification run.');
    return file.body;
  });
}
