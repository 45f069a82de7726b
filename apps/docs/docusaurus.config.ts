import type { Config } from '@docusaurus/types';
import type * as Preset from '@docusaurus/preset-classic';
import { themes as prismThemes, type PrismTheme } from 'prism-react-renderer';
import contractData from './plugins/contract-data';
import offlineBundle from './plugins/offline-bundle';

/** Where the footer's "Stream" link goes; the build can point it elsewhere. */
const PRODUCT_WEBSITE = process.env.DOCS_PRODUCT_URL ?? 'https://stream.example.com';
const POS_OVERVIEW = '/docs/become-a-stream-integration/integrate-with-stream-as-a-pos/overview';
const DSP_OVERVIEW = '/docs/become-a-stream-integration/integrate-with-stream-as-a-dsp/overview';

/** `theme` with some token colours replaced (old colour to new, as the theme writes them). */
function recolored(theme: PrismTheme, colors: Record<string, string>): PrismTheme {
  return {
    ...theme,
    styles: theme.styles.map((s) =>
      s.style.color && colors[s.style.color]
        ? { ...s, style: { ...s.style, color: colors[s.style.color] } }
        : s,
    ),
  };
}

/**
 * Code colours with a contrast of at least 4.5:1 (WCAG AA) on the code block's background, also on a
 * highlighted line (apps/docs/test/a11y.test.ts checks it): the github and dracula themes, darker
 * (light) or lighter (dark) where they fall short.
 */
const CODE_LIGHT = recolored(prismThemes.github, {
  '#999988': '#616156', // comments
  '#e3116c': '#bd0e5a', // strings
  '#36acaa': '#216a68', // numbers, variables, properties
  '#00a4db': '#00688b', // keywords
  '#d73a49': '#b3303d', // functions
});
const CODE_DARK = recolored(prismThemes.dracula, { 'rgb(98, 114, 164)': '#8692b9' /* comments */ });

/**
 * Redoc's colours that fall short of 4.5:1 (a redirect's status; the white text of a "Deprecated"
 * badge on its warning orange; its inline code, the JSON samples' numbers and booleans and its
 * unselected response tabs are recoloured in src/css/custom.css); the same in light and dark
 * (redocusaurus has one theme object for both).
 */
const REDOC_THEME = {
  colors: { responses: { redirect: { color: '#986200' } }, warning: { main: '#b35900' } },
};

const config: Config = {
  title: 'Docs',
  tagline: 'Partner Documentation',
  favicon: 'img/favicon.svg',
  // The site is served by the platform itself at `/`; the absolute URL only matters for metadata.
  url: process.env.DOCS_URL ?? 'http://localhost:8080',
  baseUrl: '/',
  // Partner documentation is not for search engines: robots meta on every page, and no sitemap.
  noIndex: true,
  titleDelimiter: '|',
  onBrokenLinks: 'throw',
  onBrokenAnchors: 'warn',
  onDuplicateRoutes: 'warn',
  baseUrlIssueBanner: true,
  i18n: { defaultLocale: 'en', locales: ['en'] },
  markdown: {
    // .md is CommonMark (braces and angle brackets are plain text); .mdx pages may use components.
    format: 'detect',
    mermaid: true,
    hooks: { onBrokenMarkdownLinks: 'warn' },
  },
  presets: [
    [
      'classic',
      {
        docs: {
          sidebarPath: './sidebars.ts',
          routeBasePath: 'docs',
          showLastUpdateTime: false,
        },
        blog: false,
        sitemap: false,
        theme: { customCss: './src/css/custom.css' },
      } satisfies Preset.Options,
    ],
  ],
  themes: [
    '@docusaurus/theme-mermaid',
    // redocusaurus' theme renders the API references; the spec of each page is imported by that
    // page (src/pages/api), so no spec lands in the global data every page loads.
    [
      'docusaurus-theme-redoc',
      {
        primaryColor: '#1d6b57',
        primaryColorDark: '#4fd1ab',
        options: { disableSearch: false, hideLoading: true },
        theme: REDOC_THEME,
      },
    ],
  ],
  plugins: [contractData, offlineBundle],
  clientModules: ['./src/client/chunk-load-error.ts', './src/client/prism-languages.ts'],
  themeConfig: {
    colorMode: { defaultMode: 'light', disableSwitch: false, respectPrefersColorScheme: false },
    docs: {
      versionPersistence: 'localStorage',
      sidebar: { hideable: false, autoCollapseCategories: false },
    },
    tableOfContents: { minHeadingLevel: 2, maxHeadingLevel: 3 },
    navbar: {
      title: 'Docs',
      logo: { alt: 'Stream', src: 'img/logo.svg' },
      items: [{ type: 'docSidebar', sidebarId: 'guides', position: 'left', label: 'Guides' }],
    },
    footer: {
      style: 'dark',
      links: [
        { label: 'Guides', to: '/docs/intro' },
        { label: 'Integrating as a POS', to: POS_OVERVIEW },
        { label: 'Integrating as a DSP', to: DSP_OVERVIEW },
        { label: 'Stream', href: PRODUCT_WEBSITE },
      ],
      copyright: 'Copyright © 2025 Stream',
    },
    prism: {
      theme: CODE_LIGHT,
      darkTheme: CODE_DARK,
      // JSON and Python are built in; shell comes from src/client/prism-languages.ts (see there why).
      additionalLanguages: [],
    },
    mermaid: { theme: { light: 'neutral', dark: 'dark' } },
  } satisfies Preset.ThemeConfig,
};

export default config;
