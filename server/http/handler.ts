/** The shape of an HTTP handler bound to one contract operation. */
import type { Operation } from "../../generated/validators.ts";
import type { Principal } from "../auth/authenticate.ts";
import type { AppDeps } from "../deps.ts";
import type { RequestInfo } from "./context.ts";

export interface HandlerContext {
  request: Request;
  params: Record<string, string>;
  info: RequestInfo;
  principal: Principal;
  deps: AppDeps;
  op: Operation;
}

export type Handler = (ctx: HandlerContext) => Response | Promise<Response>;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}
