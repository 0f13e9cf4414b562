import { describe, expect, it } from 'vitest';
import { correlationInterval } from './correlation-interval';

describe('correlationInterval', () => {
  it('reproduces a Fisher z interval worked by hand (R: cor.test gives the same)', () => {
    // r = 0.5, n = 28: z = atanh(0.5) = 0.549306144; SE = 1/√25 = 0.2;
    // z ± 1.959963985·0.2 = 0.157313347, 0.941298941; tanh → 0.156028, 0.735818.
    const [lo, hi] = correlationInterval(0.5, 28)!;
    expect(lo).toBeCloseTo(0.156028, 5);
    expect(hi).toBeCloseTo(0.735818, 5);
  });

  it('has edge cases: too few pairs, perfect correlation, no r', () => {
    expect(correlationInterval(0.4, 3)).toBeNull();
    expect(correlationInterval(null, 40)).toBeNull();
    expect(correlationInterval(1, 10)).toEqual([1, 1]);
    expect(correlationInterval(-1, 10)).toEqual([-1, -1]);
    const [lo, hi] = correlationInterval(0, 103)!;
    expect(lo).toBeCloseTo(-hi, 12);
    expect(hi).toBeCloseTo(Math.tanh(1.959963984540054 / 10), 12);
  });
});
