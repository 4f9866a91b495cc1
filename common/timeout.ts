/** The one timeout helper: bound how long a caller waits for a promise (the timer is cleared once it settles). */

/** Resolves or rejects like `promise`, or rejects with `onTimeout()` after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(onTimeout()), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Waits for `promise` to settle, at most `ms`; never rejects (its outcome is ignored). */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    promise.then(
      () => {},
      () => {},
    ),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}
