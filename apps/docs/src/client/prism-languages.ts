/**
 * Highlighting for shell code blocks without breaking hydration.
 *
 * redocusaurus makes `prismjs` the free `Prism` of every module (webpack ProvidePlugin). Docusaurus'
 * `prism.additionalLanguages` would then load prismjs while its own Prism is the global, and prismjs
 * re-highlights the server-rendered code blocks before React hydrates them (a hydration mismatch on
 * every page with code). So `additionalLanguages` stays empty; this module, which runs after
 * redocusaurus has set `Prism.manual`, loads the grammars into prismjs and lends them to the Prism
 * instance the code blocks render with.
 */
import { Prism } from 'prism-react-renderer';
import PrismJs from 'prismjs';
import 'prismjs/components/prism-bash';

for (const lang of ['bash', 'shell', 'sh']) {
  const grammar = PrismJs.languages[lang];
  if (grammar && !Prism.languages[lang]) Prism.languages[lang] = grammar;
}

export {};
