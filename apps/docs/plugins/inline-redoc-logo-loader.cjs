/* global module */
// Webpack loader for redoc's bundle: the CDN logo becomes an inline SVG (see offline-bundle.ts).
const CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const INLINE_LOGO =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='6' fill='%23888'/%3E%3C/svg%3E";

module.exports = function inlineRedocLogo(source) {
  if (!source.includes(CDN_LOGO)) return source;
  return source.split(CDN_LOGO).join(INLINE_LOGO);
};
