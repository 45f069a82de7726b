import type { RejectReason } from '@stream/contracts/apis/hr-orders/order';

/** What pricing found wrong: errors (the order cannot be priced) and the first reason to reject it. */
export class Problems {
  readonly errors: { path: string; message: string }[] = [];
  rejection: { reason: RejectReason; message: string } | undefined;

  error(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  reject(reason: RejectReason, message: string): void {
    this.rejection ??= { reason, message };
  }

  /** `message` is made only for what is out of stock (pricing asks for every line and modifier). */
  available(o: { isAvailable: boolean }, message: () => string): void {
    if (!o.isAvailable) this.reject('itemOutOfStock', message());
  }
}
