/** Request bodies: JSON only, read as text and parsed here, so errors are the spec's 400, never a framework 422. */
import { check, type SchemaName, type SchemaTypes } from "../../generated/validators.ts";
import { readCappedText } from "./capped-body.ts";
import { badRequest } from "./errors.ts";
import { jsonDepthExceeded, MAX_JSON_DEPTH } from "./json-depth.ts";

export async function readJsonBody<N extends SchemaName>(request: Request, schema: N): Promise<N extends keyof SchemaTypes ? SchemaTypes[N] : unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type.trim())) {
    throw badRequest(["(body): content-type must be application/json"], "request body must be JSON");
  }
  const text = await readCappedText(request);
  if (jsonDepthExceeded(text) !== null) throw badRequest([`(body): nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`], "request body nests too deeply");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badRequest([`(body): is not valid JSON (${(e as Error).message})`], "request body is not valid JSON");
  }
  const result = check(schema, value);
  if (!result.ok) throw badRequest(result.errors);
  return value as never;
}
