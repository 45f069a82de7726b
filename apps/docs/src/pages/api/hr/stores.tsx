import type { ReactNode } from 'react';
import ApiReference from '@site/src/components/ApiReference';
import spec from '@site/static/openapi/hr-stores.json';

export default function StoreApiReference(): ReactNode {
  return (
    <ApiReference doc="hr-stores" spec={spec}>
      <p>
        <strong>You call Stream.</strong> The Store API is a hosted restaurant-system API: a partner looks up
        stores (by company, in the <code>X-Company</code> header), delivery metrics, geofences, gateway
        credentials, order types and service types, reads the system message, and sends e-mail on behalf of a
        store. Every answer is the envelope <code>{'{data, message, messagesDetails}'}</code>.
      </p>
    </ApiReference>
  );
}
