import { describe, expect, it } from 'vitest';
import { errorBody } from './errors.ts';

describe('errorBody', () => {
  it('lists at most 100 details, then one more_problems entry counting the rest', () => {
    const details = Array.from({ length: 101 }, (_, i) => ({ path: `body.items.${i}`, message: 'is wrong' }));
    expect(errorBody('validation_failed', 'x', undefined, details.slice(0, 100)).error.details).toHaveLength(
      100,
    );
    const listed = errorBody('validation_failed', 'x', 'req_1', details).error.details!;
    expect(listed).toHaveLength(101);
    expect(listed[99]).toEqual({ path: 'body.items.99', message: 'is wrong' });
    expect(listed[100]).toEqual({
      path: 'more_problems',
      message: '1 more problem(s) not listed; fix these and send again to see them.',
    });
  });
});
