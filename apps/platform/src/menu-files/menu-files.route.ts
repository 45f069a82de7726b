import type { FastifyInstance } from 'fastify';
import { downloadMenuFile } from '@stream/contracts/apis/become-a-dsp/menu-file';
import { ApiError } from '../http/errors.ts';
import { mount } from '../http/route.ts';
import { validMenuFileLink } from '../menus/files.ts';
import { findPublication } from '../menus/publish.ts';

/** GET /menu-files/{publication_id}: a published menu file, behind a signed, expiring link. */
export function registerMenuFilesRoute(app: FastifyInstance): void {
  mount(app, downloadMenuFile, async (req) => {
    const { publication_id } = req.params;
    const { expires, signature } = req.query;
    const publication = validMenuFileLink(app.ctx.config.encryptionKey, publication_id, expires, signature)
      ? await findPublication(app.ctx.db, publication_id)
      : undefined;
    if (!publication?.file)
      throw new ApiError(
        'not_found',
        'This menu file link is unknown or expired; the next publication sends a new one.',
      );
    return publication.file;
  });
}
