/**
 * The shape of an HTTP handler bound to one contract operation, typed per operation from the
 * generated code: path parameters, query values and body as `generated/operations.ts`
 * (`OperationTypes`) gives them, and replies whose body must be the type the contract gives the
 * status.
 */
import type { OperationId, OperationTypes } from "../../generated/operations.ts";
import type { Operation } from "../../generated/validators.ts";
import type { Principal } from "../auth/authenticate.ts";
import type { AppDeps } from "../deps.ts";
import type { RequestInfo } from "./context.ts";

type RequestOf<Op extends OperationId> = OperationTypes[Op]["request"];
/** Query parameters of an operation (each optional unless the contract requires it). */
export type QueryOf<Op extends OperationId> = NonNullable<RequestOf<Op>["query"]>;
/** Path parameters of an operation. */
export type PathOf<Op extends OperationId> = NonNullable<RequestOf<Op>["path"]>;
/** Request body of an operation. */
export type BodyOf<Op extends OperationId> = RequestOf<Op>["body"];
/** Documented success bodies of an operation, by status. */
export type ResponsesOf<Op extends OperationId> = OperationTypes[Op]["responses"];

export interface HandlerContext<Op extends OperationId = OperationId> {
  request: Request;
  params: PathOf<Op>;
  info: RequestInfo;
  principal: Principal;
  deps: AppDeps;
  op: Operation;
  /** Query parameters coerced and checked against the contract; `errors` are 400 lines. */
  query(): { values: QueryOf<Op>; errors: string[] };
  /** The JSON body, checked against the operation's request schema (400 otherwise). */
  body(): Promise<BodyOf<Op>>;
  /** A JSON reply of a documented status with the body the contract gives it. */
  reply<S extends keyof ResponsesOf<Op> & number>(status: S, body: ResponsesOf<Op>[S], headers?: Record<string, string>): Response;
}

export type Handler<Op extends OperationId = OperationId> = (ctx: HandlerContext<Op>) => Response | Promise<Response>;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}
