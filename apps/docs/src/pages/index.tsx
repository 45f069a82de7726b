import type { ReactNode } from 'react';
import Link from '@docusaurus/Link';
import Layout from '@theme/Layout';
import Heading from '@theme/Heading';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';
import CrashProbe from '@site/src/components/CrashProbe';
import { contracts } from '@site/src/contracts';
import styles from './index.module.css';

const DOCS = '/docs/become-a-stream-integration';

/** The four partner kinds, each with where to start. */
const PARTNERS: { title: string; text: string; guide?: string; api: string }[] = [
  {
    title: 'POS systems',
    text: 'Expose your catalog, locations and an order endpoint; Stream sends you orders from every marketplace.',
    guide: `${DOCS}/integrate-with-stream-as-a-pos/overview`,
    api: '/api/become-a-pos',
  },
  {
    title: 'Delivery and ordering platforms (DSPs)',
    text: 'Receive menus and location events from Stream, send it orders and delivery status.',
    guide: `${DOCS}/integrate-with-stream-as-a-dsp/overview`,
    api: '/api/become-a-dsp',
  },
  {
    title: 'Event providers',
    text: 'Receive order events and send driver assignments and delivery status back.',
    api: '/api/integrate-with-events',
  },
  {
    title: 'White-label partners',
    text: 'Create organisations, onboard merchants and sign their users in, all through the Partner API.',
    guide: '/docs/authenticating/create-an-api-client',
    api: '/api/',
  },
];

export default function Home(): ReactNode {
  const { siteConfig } = useDocusaurusContext();
  return (
    <Layout description="Guides and API references for Stream's integration partners.">
      <header className={`hero hero--primary ${styles.hero}`}>
        <div className="container">
          <Heading as="h1" className="hero__title">
            {siteConfig.title}
          </Heading>
          <p className="hero__subtitle">{siteConfig.tagline}</p>
          <Link className="button button--secondary button--lg" to="/docs/intro">
            Read the guides
          </Link>
        </div>
      </header>
      <main className="container margin-vert--lg">
        <CrashProbe />
        <Heading as="h2">Who integrates with Stream</Heading>
        <div className="row">
          {PARTNERS.map((p) => (
            <div key={p.title} className="col col--3 margin-bottom--lg">
              <div className={`card ${styles.card}`}>
                <div className="card__header">
                  <Heading as="h3">{p.title}</Heading>
                </div>
                <div className="card__body">
                  <p>{p.text}</p>
                </div>
                <div className="card__footer">
                  {p.guide && (
                    <Link className="button button--primary button--sm margin-right--sm" to={p.guide}>
                      Guide
                    </Link>
                  )}
                  <Link className="button button--secondary button--sm" to={p.api}>
                    API reference
                  </Link>
                </div>
              </div>
            </div>
          ))}
        </div>
        <Heading as="h2">API references</Heading>
        <ul>
          {Object.values(contracts.apiDocs).map((doc) => (
            <li key={doc.slug}>
              <Link to={doc.route}>{doc.title}</Link>
            </li>
          ))}
        </ul>
      </main>
    </Layout>
  );
}
