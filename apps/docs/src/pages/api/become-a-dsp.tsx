import type { ReactNode } from 'react';
import Link from '@docusaurus/Link';
import ApiReference from '@site/src/components/ApiReference';
import spec from '@site/static/openapi/become-a-dsp.json';

export default function BecomeADspReference(): ReactNode {
  return (
    <ApiReference doc="become-a-dsp" spec={spec}>
      <p>
        <strong>Stream calls you, and you call Stream.</strong> A DSP (delivery or ordering marketplace){' '}
        <em>builds</em> the <code>/stream-dsp/v1/…</code> endpoints: OAuth authorize and token exchange, its
        location list, location connection, the event endpoint that receives menus, pauses, order accepts,
        failures and status changes, and the menu file download. Stream calls them with the merchant&apos;s
        bearer token.
      </p>
      <p>
        The DSP <em>sends</em> webhooks to <code>POST /order/{'{partner_id}'}</code>: new orders,
        cancellations, store status and delivery status updates, each signed with{' '}
        <code>Stream-Webhook-Signature</code> (see{' '}
        <Link to="/docs/authenticating/implementing-hmac-webhook-authentication">
          HMAC webhook authentication
        </Link>
        ).
      </p>
    </ApiReference>
  );
}
