import path from 'node:path';
import type { Plugin } from '@docusaurus/types';

/** redocusaurus' client stub for its server-rendered styles (a hydration mismatch under React 19). */
const REDOC_CLIENT_STYLES = /docusaurus-theme-redoc[\\/]dist-jsx[\\/]theme[\\/]Redoc[\\/]Styles(\.jsx)?$/;

/** Mermaid and its parsers, loaded only when a page draws a diagram. */
const MERMAID_MODULES =
  /[\\/]node_modules[\\/](mermaid|@mermaid-js|langium|chevrotain|chevrotain-allstar|vscode-[^\\/]+|cytoscape[^\\/]*|d3[^\\/]*|dagre-d3-es|khroma|katex|roughjs|dayjs|@braintree|lodash-es|marked|dompurify|stylis)[\\/]/;

/**
 * Webpack adjustments for the third-party code of the bundle:
 * - the site makes no outside requests: Redoc's "API docs by Redocly" logo, which it loads from
 *   cdn.redoc.ly, becomes an inline image;
 * - redocusaurus' server-rendered styles hydrate without a mismatch (ClientRedocStyles);
 * - theme-mermaid's optional ELK layout, not installed, is not looked for; Mermaid's modules stay in
 *   async chunks instead of Docusaurus' `common` chunk, which every page loads.
 */
export default function offlineBundlePlugin(): Plugin {
  return {
    name: 'offline-bundle',
    configureWebpack(_config, isServer, utils) {
      const { NormalModuleReplacementPlugin } = utils.currentBundler.instance;
      return {
        plugins: isServer
          ? []
          : [
              new NormalModuleReplacementPlugin(
                /[\\/]Styles$/,
                (resource: { context: string; request: string }) => {
                  if (REDOC_CLIENT_STYLES.test(path.join(resource.context, resource.request))) {
                    resource.request = path.join(
                      __dirname,
                      '../src/components/ApiReference/ClientRedocStyles.tsx',
                    );
                  }
                },
              ),
            ],
        // theme-mermaid's optional ELK layout is not installed; without this alias webpack still
        // tries to resolve its (dead) dynamic import.
        resolve: { alias: { '@mermaid-js/layout-elk': false } },
        // The server build does not split chunks at all.
        ...(isServer
          ? {}
          : {
              optimization: {
                splitChunks: {
                  cacheGroups: {
                    mermaid: {
                      test: MERMAID_MODULES,
                      chunks: 'async',
                      priority: 50,
                      reuseExistingChunk: true,
                    },
                  },
                },
              },
            }),
        module: {
          rules: [
            {
              test: /[\\/]redoc[\\/]bundles[\\/][^\\/]+\.js$/,
              use: [{ loader: path.join(__dirname, 'inline-redoc-logo-loader.cjs') }],
            },
          ],
        },
      };
    },
  };
}
