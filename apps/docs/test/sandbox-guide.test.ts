/**
 * The sandbox guide's switch table is prose (the simulator is not a contract the collector reads), so
 * this keeps it honest: every way the sandbox POS can answer an order is listed, and nothing else.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ORDER_BEHAVIORS } from '../../../packages/sandbox/src/state.ts';
import { DOCS_SITE } from './pages.ts';

const guide = readFileSync(join(DOCS_SITE, 'docs/become-a-stream-integration/sandbox.mdx'), 'utf8');

describe('the sandbox guide', () => {
  it('lists every order behaviour of the sandbox POS, and only those', () => {
    const row = guide.split('\n').find((line) => line.startsWith('| `order_behavior`'));
    expect(row, 'the order_behavior row of the switch table').toBeDefined();
    // The values are the backticked words of the row that look like behaviours (not switch names).
    const named = [...row!.matchAll(/`([a-z0-9_]+)`/g)]
      .map((m) => m[1]!)
      .filter(
        (w) =>
          !['order_behavior', 'order_confirm_ms', 'order_failure_rate', 'order.created', 'accepted'].includes(
            w,
          ),
      );
    expect([...new Set(named)].sort()).toEqual([...ORDER_BEHAVIORS].sort());
  });
});
