/**
 * The callback URL check at session creation: the same address policy as delivery, so a URL that
 * would never be contacted (loopback, private ranges unless allowed, a scheme other than http(s),
 * credentials) is refused with a 400 naming `callback_config.url` instead of being dropped later.
 * A host name that cannot be resolved now is let through: delivery checks it again before each
 * attempt, and reports a refusal on the session's WebSocket.
 */
import { checkDestination, RefusedDestinationError, type AddressPolicy } from "./address-policy.ts";

/** The validation line for a refused callback URL, or null when it may be used. */
export async function callbackUrlProblem(url: string, policy: AddressPolicy, resolveTimeoutMs = 2000): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), resolveTimeoutMs)));
  try {
    await Promise.race([checkDestination(url, policy), timeout]);
    return null;
  } catch (e) {
    if (e instanceof RefusedDestinationError && !e.transient) return `callback_config.url: ${e.message}`;
    return null;
  } finally {
    clearTimeout(timer);
  }
}
