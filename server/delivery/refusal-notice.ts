/**
 * Tells a session's client, once, that its callbacks are not delivered because the destination was
 * refused by the address policy (for example a host name that now resolves to a private address):
 * an `error` message on the WebSocket, code `callback_refused`. Once per session, so that the error
 * message (itself a callback event) cannot start a loop of refusals.
 */
import type { CallbackFailure } from "./callbacks.ts";

export interface ErrorTarget {
  error(message: string, code?: string): void;
}

export function notifyRefusedCallbacks(
  sessionOf: (sessionId: string) => ErrorTarget | undefined,
  next: (failure: CallbackFailure) => void,
): (failure: CallbackFailure) => void {
  const told = new Set<string>();
  return (failure) => {
    next(failure);
    if (failure.reason !== "refused_destination" || told.has(failure.sessionId)) return;
    const session = sessionOf(failure.sessionId);
    if (!session) return;
    told.add(failure.sessionId);
    if (told.size > 10_000) told.delete(told.values().next().value!);
    session.error(`callbacks to callback_config.url are not delivered: ${failure.detail}`, "callback_refused");
  };
}
