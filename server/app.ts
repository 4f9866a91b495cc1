/**
 * The Elysia app: every operation of the contract (generated/operations.ts) bound to its handler,
 * the published documents, the admin API. Bodies are parsed by the handlers (never by the framework),
 * so every error is the spec's error body with a request id.
 */
import { Elysia } from "elysia";
import { operations } from "../generated/operations.ts";
import { apiKeyOf, authenticate } from "./auth/authenticate.ts";
import type { AppDeps } from "./deps.ts";
import { clientAddress, type RequestInfo } from "./http/context.ts";
import { readCappedText } from "./http/capped-body.ts";
import { ApiError, errorBody, newRequestId } from "./http/errors.ts";
import { readJsonBody } from "./http/body.ts";
import { json, type Handler, type HandlerContext } from "./http/handler.ts";
import { parseQuery } from "./http/params.ts";
import { bodySchemaOf } from "./http/contract.ts";
import { routes } from "./http/routes.ts";
import { httpRequestServed, scrape } from "./metrics/index.ts";
import { pageRoutes } from "./pages/routes.ts";
import { timingSafeEqual } from "node:crypto";

const generatedDir = new URL("../generated/", import.meta.url);

/** The peer address of each request, set by the Bun server before the app sees the request. */
export const peerAddress = new WeakMap<Request, string>();

function errorResponse(status: number, info: Pick<RequestInfo, "path" | "requestId">, e: Pick<ApiError, "message" | "reason" | "validationErrors"> & { headers?: Record<string, string> }): Response {
  return new Response(JSON.stringify(errorBody(status, info.path, info.requestId, e)), {
    status,
    headers: { ...e.headers, "content-type": "application/json", "x-request-id": info.requestId },
  });
}

function requestInfo(request: Request, deps: AppDeps): RequestInfo {
  const url = new URL(request.url);
  return {
    requestId: newRequestId(),
    path: url.pathname,
    url,
    headers: request.headers,
    clientIp: clientAddress(peerAddress.get(request), request.headers, deps.config.trustProxy),
  };
}

function adminAuthorized(request: Request, token: string | null): boolean {
  if (!token) return false;
  const header = request.headers.get("authorization") ?? "";
  if (!header.startsWith("Bearer ")) return false;
  const given = Buffer.from(header.slice("Bearer ".length));
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/**
 * The methods the contract defines for `path` (an exact path wins over a templated one, so
 * `/v2/live/defaults` is not taken for `/v2/live/{id}`); empty when no operation has that path.
 */
const templated = operations.filter((op) => op.path.includes("{")).map((op) => ({ op, pattern: new RegExp(`^${op.path.replace(/\{\w+\}/g, "[^/]+")}$`) }));
function allowedMethods(path: string): string[] {
  const exact = operations.filter((op) => op.path === path);
  const matching = exact.length ? exact : templated.filter((t) => t.pattern.test(path)).map((t) => t.op);
  return [...new Set(matching.map((op) => op.method.toUpperCase()))];
}

class MethodNotAllowed extends Error {
  constructor(readonly allow: string[]) {
    super("method not allowed");
  }
}

/** 405 with the error body and `Allow`. */
function methodNotAllowed(request: Request, info: Pick<RequestInfo, "path" | "requestId">, allow: string[]): Response {
  const response = errorResponse(405, info, { message: `method ${request.method} not allowed; allowed: ${allow.join(", ")}`, reason: null, validationErrors: null });
  response.headers.set("allow", allow.join(", "));
  return response;
}

export function createApp(deps: AppDeps) {
  const { log } = deps;
  const app = new Elysia({ normalize: false });

  for (const op of operations) {
    const route = routes[op.operationId];
    const path = op.path.replace(/\{(\w+)\}/g, ":$1");
    app.route(
      op.method,
      path,
      async ({ request, params }: { request: Request; params: Record<string, string> }) => {
        const info = requestInfo(request, deps);
        const started = performance.now();
        let response: Response;
        try {
          // A templated route taking a static path of other methods (DELETE /v2/live/defaults).
          if (!allowedMethods(info.path).includes(op.method)) throw new MethodNotAllowed(allowedMethods(info.path));
          // Public operations (the health probes) have no principal; their handlers read none.
          const principal = route.scope === null ? (null as never) : await authenticate(deps.store, apiKeyOf(request.headers), info.clientIp, route.scope);
          response = await (route.handler as Handler)({
            request,
            params: params as HandlerContext["params"],
            info,
            principal,
            deps,
            op,
            query: () => parseQuery(op, info.url.searchParams) as ReturnType<HandlerContext["query"]>,
            body: () => readJsonBody(request, bodySchemaOf(op)) as never,
            reply: (status, body, headers) => json(body, status, headers),
          });
        } catch (e) {
          if (e instanceof MethodNotAllowed) {
            response = methodNotAllowed(request, info, e.allow);
          } else if (e instanceof ApiError) {
            response = errorResponse(e.status, info, e);
          } else {
            log.error("unhandled error", { request_id: info.requestId, path: info.path, error: e });
            response = errorResponse(503, info, { message: "the service could not answer; retry with backoff", reason: null, validationErrors: null });
          }
        }
        response.headers.set("x-request-id", info.requestId);
        httpRequestServed(op.operationId, response.status, (performance.now() - started) / 1000);
        log.info("request", {
          request_id: info.requestId,
          method: op.method,
          path: info.path,
          operation: op.operationId,
          status: response.status,
          ms: Math.round((performance.now() - started) * 10) / 10,
        });
        return response;
      },
      { parse: "none" } as never,
    );
  }

  app.get("/openapi.json", () => new Response(Bun.file(new URL("openapi.json", generatedDir)), { headers: { "content-type": "application/json" } }));
  app.get("/asyncapi.json", () => new Response(Bun.file(new URL("asyncapi.json", generatedDir)), { headers: { "content-type": "application/json" } }));
  pageRoutes(app, log);
  app.get("/metrics", async () => {
    const { body, contentType } = await scrape();
    return new Response(body, { headers: { "content-type": contentType } });
  });

  // The admin API (tRPC, zod) is loaded with its first request: start-up does not pay for it.
  app.all("/admin/trpc/*", async ({ request }: { request: Request }) => {
    if (!deps.config.adminToken) return errorResponse(404, requestInfo(request, deps), { message: "no such endpoint", reason: null, validationErrors: null });
    const [{ fetchRequestHandler }, { adminRouter }] = await Promise.all([import("@trpc/server/adapters/fetch"), import("./admin/router.ts")]);
    let req = request;
    if (request.body) {
      try {
        req = new Request(request.url, { method: request.method, headers: request.headers, body: await readCappedText(request) });
      } catch (e) {
        if (e instanceof ApiError) return errorResponse(e.status, requestInfo(request, deps), e);
        throw e;
      }
    }
    return fetchRequestHandler({
      endpoint: "/admin/trpc",
      req,
      router: adminRouter,
      createContext: () => ({ store: deps.store, authorized: adminAuthorized(request, deps.config.adminToken), now: () => deps.clock.now() }),
    });
  });

  app.onError(({ request, code }) => {
    const info = requestInfo(request, deps);
    if (code === "NOT_FOUND") {
      const allow = allowedMethods(info.path);
      if (allow.length === 0) return errorResponse(404, info, { message: "no such endpoint", reason: null, validationErrors: null });
      return methodNotAllowed(request, info, allow);
    }
    log.error("framework error", { request_id: info.requestId, code });
    return errorResponse(400, info, { message: "request could not be read", reason: null, validationErrors: ["(request): could not be parsed"] });
  });

  return app;
}
