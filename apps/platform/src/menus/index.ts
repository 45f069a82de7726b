import { defineCapability } from '../http/api.ts';
import { registerCatalogRoute } from './locations-catalog.route.ts';
import { registerDryRunRoute } from './locations-dry-run.route.ts';
import { registerPublicationsRoute } from './locations-publications.route.ts';
import { registerPublishRoute } from './locations-publish.route.ts';

/** `/menus/*`: a location's catalog, dry runs, publishing and publications (Partner API). */
export const menus = defineCapability('/menus', (scope) => {
  registerCatalogRoute(scope);
  registerDryRunRoute(scope);
  registerPublishRoute(scope);
  registerPublicationsRoute(scope);
});
