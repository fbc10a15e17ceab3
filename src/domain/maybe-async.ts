/**
 * A value that some implementations of an interface have at once and others must wait for:
 * the checks of an API request (the data versions, the key's owner, the account's budget) are
 * all in memory in embedded mode and need PostgreSQL or Redis in scaled mode. Taken as they
 * come, the embedded server answers a repeated request without a promise turn per check
 * (`/countries`: about 1 µs of a 21 µs request, bench/RESULTS.md).
 */
export type MaybeAsync<T> = T | Promise<T>;

/** `next(value)`: at once when `value` is there, once it settles when it is a promise. */
export function whenSettled<T, U>(
  value: MaybeAsync<T>,
  next: (settled: T) => MaybeAsync<U>,
): MaybeAsync<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
