import type { ReactNode } from 'react';
import Link from '@docusaurus/Link';
import ApiReference from '@site/src/components/ApiReference';
import spec from '@site/static/openapi/become-a-pos.json';

export default function BecomeAPosReference(): ReactNode {
  return (
    <ApiReference doc="become-a-pos" spec={spec}>
      <p>
        <strong>Stream calls you, and you call Stream.</strong> A POS <em>builds</em> the{' '}
        <code>/stream-pos/v1/…</code> endpoints: OAuth authorize and token exchange, its catalog and
        locations, the order endpoint that receives new, updated and canceled orders (answering 400 with a
        validation body to reject one), location connection, and the menu publication events. Stream calls
        them with the merchant&apos;s bearer token.
      </p>
      <p>
        The POS <em>sends</em> webhooks to <code>POST /pos/{'{partner_slug}'}/webhook</code>: catalog and
        catalog object updates, order status updates, location status and disconnection, and in-store orders,
        each signed with <code>Stream-Webhook-Signature</code> (see{' '}
        <Link to="/docs/authenticating/implementing-hmac-webhook-authentication">
          HMAC webhook authentication
        </Link>
        ).
      </p>
    </ApiReference>
  );
}
