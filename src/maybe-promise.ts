/**
 * A value, or the promise of it: what the hot path hands on when the answer
 * is usually known at once (a token verified before, a caller already
 * authenticated). Awaiting a value that is already there costs a promise and
 * a microtask turn per request, so the known case stays synchronous.
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `then(value)` now when the value is known, or once the promise settles (a
 * rejection passes through untouched). `then` may itself answer with a value
 * or a promise, so steps chain: the result is a promise only if one of them was.
 *
 * `arg` is handed to `then` as its second argument: a step that needs
 * something of its caller's takes it that way instead of closing over it, so
 * the known case allocates no closure (a closure that could reach the
 * promise's `then` is allocated on every call, known value or not).
 */
export function whenKnown<T, R>(value: MaybePromise<T>, then: (known: T) => MaybePromise<R>): MaybePromise<R>;
export function whenKnown<T, A, R>(value: MaybePromise<T>, then: (known: T, arg: A) => MaybePromise<R>, arg: A): MaybePromise<R>;
export function whenKnown<T, A, R>(value: MaybePromise<T>, then: (known: T, arg?: A) => MaybePromise<R>, arg?: A): MaybePromise<R> {
  return value instanceof Promise ? value.then((known) => then(known, arg)) : then(value, arg);
}
