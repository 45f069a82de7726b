import type { ReactNode } from 'react';
import Link from '@docusaurus/Link';
import ApiReference from '@site/src/components/ApiReference';
import spec from '@site/static/openapi/integrate-with-events.json';

export default function EventsReference(): ReactNode {
  return (
    <ApiReference doc="integrate-with-events" spec={spec}>
      <p>
        <strong>Stream calls you, and you call Stream.</strong> An event provider <em>builds</em> one
        endpoint, <code>POST /event</code>, which receives <code>order.confirmed</code>,{' '}
        <code>order.updated</code> and <code>order.canceled</code> events signed with{' '}
        <code>X-Stream-Signature</code>.
      </p>
      <p>
        The provider <em>sends</em> driver assignments and delivery status updates to{' '}
        <code>POST /event-provider/{'{partner_slug}'}/webhook</code>, signed with{' '}
        <code>Stream-Webhook-Signature</code> (see{' '}
        <Link to="/docs/authenticating/implementing-hmac-webhook-authentication">
          HMAC webhook authentication
        </Link>
        ).
      </p>
    </ApiReference>
  );
}
