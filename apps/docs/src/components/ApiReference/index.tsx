import { useEffect, useMemo, useRef, type ReactNode } from 'react';
import Layout from '@theme/Layout';
import Heading from '@theme/Heading';
import Redoc from '@theme/Redoc';
import useBaseUrl from '@docusaurus/useBaseUrl';
import { contracts, type ApiDocKey } from '@site/src/contracts';
import { makeRedocAccessible } from './accessible-redoc';
import { withAbsoluteServers } from './servers';
import styles from './styles.module.css';

const REDOC_OPTIONS = { hideDownloadButton: true, hideDownloadButtons: true };

interface Props {
  /** Key of the document in `API_DOCS` (packages/contracts/src/operation.ts). */
  doc: ApiDocKey;
  /** The OpenAPI document `npm run openapi` generated, imported by the page. */
  spec: object;
  /** Who calls whom: the introduction that opens the page. */
  children: ReactNode;
}

/** One API reference page: title, introduction, download link, then the Redoc rendering. */
export default function ApiReference({ doc, spec, children }: Props): ReactNode {
  const { title, slug } = contracts.apiDocs[doc]!;
  const downloadUrl = useBaseUrl(`/openapi/${slug}.json`);
  const shown = useMemo(() => withAbsoluteServers(spec), [spec]);
  const redoc = useRef<HTMLDivElement>(null);
  useEffect(() => makeRedocAccessible(redoc.current!), []);
  const { version } = (spec as { info: { version: string } }).info;
  return (
    <Layout title={`${title} reference`} description={`OpenAPI reference of the ${title}.`}>
      <main>
        <header className={`container ${styles.intro}`}>
          <Heading as="h1">{title} reference</Heading>
          {children}
          <p>
            Version {version}.{' '}
            <a className="button button--primary button--sm" href={downloadUrl} download={`${slug}.json`}>
              Download the OpenAPI 3.1 document
            </a>
          </p>
        </header>
        {/* Redoc's own download button would resolve the URL against the page's origin in the browser
            only, a hydration mismatch; the link above offers the same document. */}
        {/* Redoc's own h1 (title and version) is hidden by src/css/custom.css: one h1 per page, ours. */}
        <div ref={redoc}>
          <Redoc spec={shown} url={downloadUrl} optionsOverrides={REDOC_OPTIONS} />
        </div>
      </main>
    </Layout>
  );
}
