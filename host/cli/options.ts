/** Argument parsers shared by the commands: each names the option and what it expected. */
import { InvalidArgumentError } from 'commander';

/**
 * A positive integer option; with `bound` ([max, why], e.g. RUN_CONFIG_BOUNDS' entries), one above
 * max is refused naming the bound and why (an unbounded count of episodes runs out of memory).
 */
export function positiveInt(name: string, bound?: readonly [number, string]) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value)))
      throw new InvalidArgumentError(`${name} must be a positive integer, got "${value}".`);
    if (bound && Number(value) > bound[0]) throw new InvalidArgumentError(`${name} must be at most ${bound[0]} (${bound[1]}), got ${value}.`);
    return Number(value);
  };
}

export function nonNegativeInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be 0 or a positive integer, got "${value}".`);
    return Number(value);
  };
}

export function seedInt(value: string): number {
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError(`--seed must be an integer, got "${value}".`);
  return Number(value) | 0;
}

/** An error the CLI reports as one clear line (exit code 2), without a stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}
