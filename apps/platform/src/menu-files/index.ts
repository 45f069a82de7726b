import { defineCapability } from '../http/api.ts';
import { registerMenuFilesRoute } from './menu-files.route.ts';

/** `/menu-files/*`: where DSPs download published menu files (signed links). The work is in `menus/`. */
export const menuFiles = defineCapability('/menu-files', (scope) => {
  registerMenuFilesRoute(scope);
});
