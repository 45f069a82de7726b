import type { ReactNode } from 'react';
import ApiReference from '@site/src/components/ApiReference';
import spec from '@site/static/openapi/hr-menu.json';

export default function MenuApiReference(): ReactNode {
  return (
    <ApiReference doc="hr-menu" spec={spec}>
      <p>
        <strong>You call Stream.</strong> The Menu API is a hosted restaurant-system API: a partner reads a
        store&apos;s menu (groups, items, nested modifiers, taxes, order types and discounts), changes it, and
        lists out-of-stock items. Name the store in the <code>X-Store</code> header. Every answer is the
        envelope <code>{'{data, message, messagesDetails}'}</code>.
      </p>
    </ApiReference>
  );
}
