import type { ReactNode } from 'react';
import Link from '@docusaurus/Link';
import ApiReference from '@site/src/components/ApiReference';
import spec from '@site/static/openapi/partner-api.json';

export default function PartnerApiReference(): ReactNode {
  return (
    <ApiReference doc="partner" spec={spec}>
      <p>
        <strong>You call Stream.</strong> The Partner API is what a partner&apos;s own back end calls: it
        exchanges client credentials for a bearer token (<code>POST /oauth/token</code>) and, with that token,
        manages API tokens, organisations, onboarding, single sign-on sessions and billing reports. Every
        endpoint except the token endpoint needs <code>Authorization: Bearer &lt;access_token&gt;</code> with
        the scopes it lists.
      </p>
      <p>
        Start with <Link to="/docs/authenticating/requesting-a-token">Requesting a token</Link>.
      </p>
    </ApiReference>
  );
}
