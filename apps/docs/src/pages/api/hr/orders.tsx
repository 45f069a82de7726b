import type { ReactNode } from 'react';
import ApiReference from '@site/src/components/ApiReference';
import spec from '@site/static/openapi/hr-orders.json';

export default function OrderApiReference(): ReactNode {
  return (
    <ApiReference doc="hr-orders" spec={spec}>
      <p>
        <strong>You call Stream.</strong> The Order API is a hosted restaurant-system API: a partner prices,
        places, reads, cancels and pays orders at a store named in the <code>X-Store</code> header. Every
        answer is the envelope <code>{'{data, message, messagesDetails}'}</code>.
      </p>
    </ApiReference>
  );
}
