/**
 * Outbound address policy for callback delivery (SSRF guard).
 *
 * A callback URL is accepted only when it uses http(s) and EVERY address its
 * host resolves to is public unicast, unless the operator explicitly allows
 * loopback or private ranges. The check runs before any connection is made.
 */
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

/** Which non-public destinations the operator allows. */
export interface AddressPolicy {
  /** Allow 127.0.0.0/8 and ::1 (local development, tests). */
  allowLoopback?: boolean;
  /** Allow RFC 1918, carrier-grade NAT, link-local and unique-local ranges. */
  allowPrivate?: boolean;
}

/** Why a URL was refused. */
export class RefusedDestinationError extends Error {
  /** True when the refusal may clear on its own (name resolution failed). */
  readonly transient: boolean;
  constructor(message: string, transient = false) {
    super(message);
    this.name = "RefusedDestinationError";
    this.transient = transient;
  }
}

const PRIVATE_RANGES = new Set(["private", "linkLocal", "uniqueLocal", "carrierGradeNat", "deprecatedSiteLocal"]);

/** Classifies one IP address literal; returns null when allowed, else the reason. */
export function addressRefusal(address: string, policy: AddressPolicy): string | null {
  if (!ipaddr.isValid(address)) return `not an IP address: ${address}`;
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6;
    const p = v6.parts;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) {
      // IPv4-compatible form (`::a.b.c.d`, deprecated by RFC 4291; `[::127.0.0.1]` reads `::7f00:1`):
      // judged by the IPv4 address it embeds. `::` and `::1` keep their own meaning.
      ip = ipaddr.fromByteArray([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
    }
  }
  const range = ip.range();
  if (range === "unicast") return null;
  if (range === "loopback") return policy.allowLoopback ? null : `loopback address ${address} refused`;
  if (PRIVATE_RANGES.has(range)) return policy.allowPrivate ? null : `${range} address ${address} refused`;
  // unspecified, broadcast, multicast, reserved, translation/tunnel ranges that
  // can embed private IPv4 addresses (6to4, teredo, NAT64), and the rest.
  return `${range} address ${address} refused`;
}

/**
 * Validates a callback URL and the addresses its host resolves to.
 * Resolves with the parsed URL and the addresses; rejects with
 * RefusedDestinationError when the URL must not be contacted.
 */
export async function checkDestination(
  rawUrl: string,
  policy: AddressPolicy,
): Promise<{ url: URL; addresses: string[] }> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new RefusedDestinationError(`invalid URL: ${JSON.stringify(rawUrl)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new RefusedDestinationError(`unsupported scheme ${url.protocol} (http or https required)`);
  }
  if (url.username || url.password) {
    throw new RefusedDestinationError("credentials in callback URLs are not allowed");
  }
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      const found = await lookup(host, { all: true, verbatim: true });
      addresses = found.map((entry) => entry.address);
    } catch (error) {
      throw new RefusedDestinationError(`cannot resolve ${host}: ${(error as Error).message}`, true);
    }
    if (addresses.length === 0) throw new RefusedDestinationError(`no address for ${host}`);
  }
  for (const address of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal) throw new RefusedDestinationError(refusal);
  }
  return { url, addresses };
}
