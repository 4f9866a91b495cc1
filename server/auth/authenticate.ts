/** API-key authentication: `x-service-key` (or its alias `x-gladia-key`) → account, then scope and address checks. */
import ipaddr from "ipaddr.js";
import { ApiError, forbidden, unauthorized } from "../http/errors.ts";
import type { Account, ApiKeyRecord, Scope, Store } from "../store/types.ts";

export interface Principal {
  account: Account;
  key: ApiKeyRecord;
}

const API_KEY_HEADER = "x-service-key";
/** The header name of the hosted cloud variant's SDKs (`apiKey` option), accepted as an alias. */
const API_KEY_ALIAS_HEADER = "x-gladia-key";

/** The API key of a request: `x-service-key`, else `x-gladia-key`. */
export function apiKeyOf(headers: Headers): string | null {
  return headers.get(API_KEY_HEADER) || headers.get(API_KEY_ALIAS_HEADER);
}

/** Normalise an address (IPv4-mapped IPv6 becomes IPv4); null when unparsable. */
function parseAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    const addr = ipaddr.parse(ip);
    return addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
  } catch {
    return null;
  }
}

/** True when `ip` falls in one of `cidrs` (an empty list allows every address). */
function addressAllowed(ip: string | null, cidrs: readonly string[]): boolean {
  if (cidrs.length === 0) return true;
  const addr = ip ? parseAddress(ip) : null;
  if (!addr) return false;
  return cidrs.some((cidr) => {
    const [range, bits] = ipaddr.parseCIDR(cidr);
    return range.kind() === addr.kind() && addr.match(range, bits);
  });
}

/** Throws when `cidr` is not a valid CIDR range. */
export function assertCidr(cidr: string): void {
  ipaddr.parseCIDR(cidr);
}

export async function authenticate(store: Store, key: string | null | undefined, clientIp: string | null, scope: Scope): Promise<Principal> {
  if (!key) throw unauthorized("missing API key: send it in the x-service-key header (or x-gladia-key)");
  const record = await store.findKeyBySecret(key);
  if (!record) throw unauthorized("unknown API key");
  const account = await store.getAccount(record.accountId);
  if (!account) throw unauthorized("unknown API key");
  if (!addressAllowed(clientIp, record.allowedCidrs)) throw forbidden("ip_not_allowed", "this API key may not be used from this address");
  if (!record.scopes.includes(scope)) throw forbidden("api_key_scope_denied", `this API key lacks the ${scope} scope`);
  return { account, key: record };
}

export { ApiError };
