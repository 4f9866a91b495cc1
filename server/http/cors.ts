/**
 * Cross-origin access for browser apps, configured by `CORS_ORIGINS` (comma-separated origins, or `*`).
 * Unset: no CORS headers, so only same-origin pages can read answers. Set: preflights (`OPTIONS` with
 * `Access-Control-Request-Method`) from an allowed origin are answered 204 with the methods and the
 * headers the API reads; answers to allowed origins carry `Access-Control-Allow-Origin` and expose
 * `x-request-id` (and the recording's `Content-Range`). Keys travel in headers, never cookies, so
 * credentials are not allowed.
 */

const CORS_ALLOW_METHODS = "GET, POST, DELETE, OPTIONS";
const CORS_ALLOW_HEADERS = "x-service-key, x-gladia-key, content-type, range";
const CORS_EXPOSE_HEADERS = "x-request-id, content-range, content-length, location";
const MAX_AGE_S = "600";

/** `CORS_ORIGINS` parsed: null (off), "*", or exact origins (`scheme://host[:port]`). */
export type CorsOrigins = null | "*" | readonly string[];

export function parseCorsOrigins(value: string | undefined): CorsOrigins {
  const items = (value ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) return null;
  if (items.includes("*")) return "*";
  return items.map((item) => {
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      throw new Error(`CORS_ORIGINS: ${JSON.stringify(item)} is not an origin (scheme://host[:port]) or *`);
    }
    if (url.origin === "null" || url.pathname !== "/" || url.search || url.hash || item.replace(/\/$/, "") !== url.origin) {
      throw new Error(`CORS_ORIGINS: ${JSON.stringify(item)} is not an origin (scheme://host[:port], no path) or *`);
    }
    return url.origin;
  });
}

export interface Cors {
  /** The 204 answer to a CORS preflight, or null when `request` is not one (or CORS is off). */
  preflight(request: Request): Response | null;
  /** Adds the CORS headers an allowed origin needs to read `response`. */
  decorate(request: Request, response: Response): Response;
}

export function createCors(origins: CorsOrigins): Cors {
  const allowed = (origin: string | null): string | null => {
    if (!origin || origins === null) return null;
    if (origins === "*") return "*";
    return origins.includes(origin) ? origin : null;
  };
  return {
    preflight(request) {
      if (origins === null || request.method !== "OPTIONS" || !request.headers.has("access-control-request-method")) return null;
      const headers = new Headers({ vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers" });
      const allow = allowed(request.headers.get("origin"));
      if (allow) {
        headers.set("access-control-allow-origin", allow);
        headers.set("access-control-allow-methods", CORS_ALLOW_METHODS);
        headers.set("access-control-allow-headers", CORS_ALLOW_HEADERS);
        headers.set("access-control-max-age", MAX_AGE_S);
      }
      return new Response(null, { status: 204, headers });
    },
    decorate(request, response) {
      if (origins === null) return response;
      const allow = allowed(request.headers.get("origin"));
      if (origins !== "*") response.headers.append("vary", "Origin");
      if (allow) {
        response.headers.set("access-control-allow-origin", allow);
        response.headers.set("access-control-expose-headers", CORS_EXPOSE_HEADERS);
      }
      return response;
    },
  };
}
