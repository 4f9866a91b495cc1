/** Per-request facts every handler needs: request id, path, client address. */
export interface RequestInfo {
  requestId: string;
  path: string;
  clientIp: string | null;
  url: URL;
  headers: Headers;
}

/** The caller's address: the socket peer, or the first `x-forwarded-for` hop when the operator trusts a proxy. */
export function clientAddress(peer: string | null | undefined, headers: Headers, trustProxy: boolean): string | null {
  if (trustProxy) {
    const fwd = headers.get("x-forwarded-for");
    if (fwd) return fwd.split(",")[0]!.trim();
  }
  return peer ?? null;
}
