/** The spec's error body and the exception that carries it through handlers. */
import { randomBytes } from "node:crypto";

/** `G-` followed by 8 lowercase hex characters. */
export function newRequestId(): string {
  return "G-" + randomBytes(4).toString("hex");
}

export interface ErrorBody {
  statusCode: number;
  timestamp: string;
  path: string;
  message: string;
  request_id: string;
  validation_errors?: string[] | null;
  error?: string | null;
}

/** Thrown by handlers; rendered into the error body by the app's error hook. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason: string | null = null,
    readonly validationErrors: string[] | null = null,
    /** Headers of the answer besides the error body's (e.g. `retry-after` on a 503). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (validationErrors: string[], message = "request is invalid") =>
  new ApiError(400, message, null, validationErrors);
export const unauthorized = (message = "missing or unknown API key") => new ApiError(401, message);
export const forbidden = (reason: string | null, message: string) => new ApiError(403, message, reason);
export const notFound = (message = "no such session for this account") => new ApiError(404, message);

export function errorBody(status: number, path: string, requestId: string, e: Pick<ApiError, "message" | "reason" | "validationErrors">, now = new Date()): ErrorBody {
  const body: ErrorBody = {
    statusCode: status,
    timestamp: now.toISOString(),
    path,
    message: e.message,
    request_id: requestId,
  };
  if (e.validationErrors) body.validation_errors = e.validationErrors;
  if (e.reason) body.error = e.reason;
  return body;
}
