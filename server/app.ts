/**
 * The Elysia app: every operation of the contract (generated/operations.ts) bound to its handler,
 * the published documents, the admin API. Bodies are parsed by the handlers (never by the framework),
 * so every error is the spec's error body with a request id.
 */
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { Elysia } from "elysia";
import { operations } from "../generated/operations.ts";
import { adminRouter } from "./admin/router.ts";
import { API_KEY_HEADER, authenticate } from "./auth/authenticate.ts";
import type { AppDeps } from "./deps.ts";
import { clientAddress, type RequestInfo } from "./http/context.ts";
import { ApiError, errorBody, newRequestId } from "./http/errors.ts";
import { readJsonBody } from "./http/body.ts";
import { json, type Handler, type HandlerContext } from "./http/handler.ts";
import { parseQuery } from "./http/params.ts";
import { bodySchemaOf } from "./http/contract.ts";
import { routes } from "./http/routes.ts";
import { timingSafeEqual } from "node:crypto";

const generatedDir = new URL("../generated/", import.meta.url);

/** The peer address of each request, set by the Bun server before the app sees the request. */
export const peerAddress = new WeakMap<Request, string>();

function errorResponse(status: number, info: Pick<RequestInfo, "path" | "requestId">, e: Pick<ApiError, "message" | "reason" | "validationErrors">): Response {
  return new Response(JSON.stringify(errorBody(status, info.path, info.requestId, e)), {
    status,
    headers: { "content-type": "application/json", "x-request-id": info.requestId },
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
  const given = Buffer.from(request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ?? "");
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
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
          const principal = await authenticate(deps.store, request.headers.get(API_KEY_HEADER), info.clientIp, route.scope);
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
          if (e instanceof ApiError) {
            response = errorResponse(e.status, info, e);
          } else {
            log.error("unhandled error", { request_id: info.requestId, path: info.path, error: e });
            response = errorResponse(503, info, { message: "the service could not answer; retry with backoff", reason: null, validationErrors: null });
          }
        }
        response.headers.set("x-request-id", info.requestId);
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
  app.get("/docs", () => new Response(Bun.file(new URL("reference.html", generatedDir)), { headers: { "content-type": "text/html; charset=utf-8" } }));
  app.get("/health", () => ({ status: "ok" }));
  app.get("/metrics", async () => new Response(await deps.inferenceMetrics(), { headers: { "content-type": "text/plain; version=0.0.4" } }));

  app.all("/admin/trpc/*", ({ request }: { request: Request }) => {
    if (!deps.config.adminToken) return errorResponse(404, requestInfo(request, deps), { message: "no such endpoint", reason: null, validationErrors: null });
    return fetchRequestHandler({
      endpoint: "/admin/trpc",
      req: request,
      router: adminRouter,
      createContext: () => ({ store: deps.store, authorized: adminAuthorized(request, deps.config.adminToken), now: () => deps.clock.now() }),
    });
  });

  app.onError(({ request, code }) => {
    const info = requestInfo(request, deps);
    if (code === "NOT_FOUND") return errorResponse(404, info, { message: "no such endpoint", reason: null, validationErrors: null });
    log.error("framework error", { request_id: info.requestId, code });
    return errorResponse(400, info, { message: "request could not be read", reason: null, validationErrors: ["(request): could not be parsed"] });
  });

  return app;
}
