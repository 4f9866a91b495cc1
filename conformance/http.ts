/**
 * HTTP conformance: per operation of the OpenAPI document, positive cases generated from its
 * parameter and body schemas, negative cases from mutators, malformed bodies and bad keys; every
 * response is checked against the documented statuses, media types, schemas and headers.
 */
import fc from "fast-check";
import { arbitraryOf } from "./arbitrary.ts";
import { derefSchema, type Contract, type JsonSchema, type OperationSpec, type ParameterSpec } from "./contract.ts";
import { fieldName, mutationsOf, parameterMutations } from "./mutators.ts";
import { describeRequest, type CheckName, type RequestDescription, type Violation } from "./report.ts";
import { markedMembers, withoutRefused } from "./refused.ts";
import { ruleOf } from "./rules.ts";

/** The deployment under test. */
export interface Target {
  baseUrl: string;
  /** A key holding every scope. */
  key: string;
  /** A key holding no scope (optional; enables the 403 cases). */
  unscopedKey?: string;
}

export type AuthMode = "valid" | "absent" | "unknown" | "unscoped";

export type Expectation =
  | { kind: "positive" }
  | { kind: "negative"; what: string; field: string | null; location: "body" | "query" | "path" | "content" }
  | { kind: "auth"; mode: Exclude<AuthMode, "valid"> };

export interface HttpCase {
  operationId: string;
  pathParams: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body?: string;
  auth: AuthMode;
  expect: Expectation;
}

export interface Observed {
  status: number;
  headers: Headers;
  text: string;
}

/** Outcome of the checks on one exchange. */
export interface Verdict {
  violations: Violation[];
  /** Rules (see rules.ts) a schema-valid request met. */
  rules: string[];
}

/** Shared mutable state of a run: ids of sessions seen, for path parameters. */
export interface HttpState {
  knownIds: string[];
  /** Query values seen in `next` links, per parameter name (opaque values such as cursors). */
  observedQuery: Record<string, string[]>;
}

const UNKNOWN_KEY = "conformance-unknown-key-0000";

export function concretePath(op: OperationSpec, params: Record<string, string>): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(params[n] ?? ""));
}

/** The request a case sends, without its key (for printing). */
export function requestOf(op: OperationSpec, c: HttpCase): RequestDescription {
  const headers = { ...c.headers };
  if (c.auth === "unknown") headers[op.keyHeader ?? "x-service-key"] = UNKNOWN_KEY;
  if (c.auth === "unscoped") headers[op.keyHeader ?? "x-service-key"] = "<key without scopes>";
  return { method: op.method, path: concretePath(op, c.pathParams), query: c.query, headers, body: c.body };
}

export function describeCase(op: OperationSpec, c: HttpCase): string {
  const what = c.expect.kind === "positive" ? "schema-valid request" : c.expect.kind === "auth" ? `key ${c.expect.mode}` : `negative (${c.expect.what}${c.expect.field ? ` at ${c.expect.field}` : ""})`;
  return `${op.operationId}: ${what}\n${describeRequest(requestOf(op, c))}`;
}

/** Sends one case. */
export async function execute(target: Target, op: OperationSpec, c: HttpCase): Promise<Observed> {
  const url = new URL(concretePath(op, c.pathParams), target.baseUrl);
  for (const [k, v] of c.query) url.searchParams.append(k, v);
  const headers = new Headers(c.headers);
  const keyHeader = op.keyHeader ?? "x-service-key";
  if (c.auth === "valid") headers.set(keyHeader, target.key);
  else if (c.auth === "unknown") headers.set(keyHeader, UNKNOWN_KEY);
  else if (c.auth === "unscoped" && target.unscopedKey) headers.set(keyHeader, target.unscopedKey);
  const res = await fetch(url, { method: op.method, headers, body: c.body, redirect: "manual" });
  const text = op.method === "GET" && res.headers.get("content-type")?.startsWith("audio/") ? `<${(await res.arrayBuffer()).byteLength} bytes>` : await res.text();
  return { status: res.status, headers: res.headers, text };
}

const v = (check: CheckName, message: string): Violation => ({ check, message });

/** Business errors a schema-valid request may meet, depending on the deployment's state. */
const BUSINESS = new Set([402, 404, 429, 500, 503]);

/** Checks one exchange against the contract and the case's expectation. */
export function checkExchange(contract: Contract, op: OperationSpec, c: HttpCase, o: Observed): Verdict {
  const out: Violation[] = [];
  const rules: string[] = [];
  const spec = op.responses[o.status];
  const documented = Object.keys(op.responses).map(Number);
  if (o.status >= 500 && !spec) out.push(v("not_a_server_error", `${o.status} is not documented for ${op.operationId}`));
  if (!spec) out.push(v("status_code_conformance", `status ${o.status} is not one of ${documented.join(", ")}`));
  let json: unknown;
  if (spec) {
    const ct = o.headers.get("content-type");
    if (spec.contentType) {
      if (!ct || ct.split(";")[0]!.trim().toLowerCase() !== spec.contentType.toLowerCase()) out.push(v("content_type_conformance", `content-type ${ct ?? "(none)"}, documented ${spec.contentType}`));
      if (spec.contentType.includes("json")) {
        try {
          json = JSON.parse(o.text);
        } catch {
          out.push(v("response_schema_conformance", `body is not JSON: ${o.text.slice(0, 80)}`));
        }
        if (json !== undefined && spec.schema) {
          const r = contract.validate(spec.schema, json);
          if (!r.ok) out.push(v("response_schema_conformance", `${o.status} body: ${r.errors.join("; ")}`));
        }
      }
    } else if (o.text.length > 0) out.push(v("content_type_conformance", `${o.status} documents no body, got ${o.text.length} bytes`));
    for (const [name, h] of Object.entries(spec.headers)) {
      const value = o.headers.get(name);
      if (value === null) {
        if (h.required) out.push(v("response_headers_conformance", `header ${name} missing on ${o.status}`));
        continue;
      }
      if (name === "x-request-id" && contract.requestIdPattern && !contract.requestIdPattern.test(value)) out.push(v("response_headers_conformance", `x-request-id ${JSON.stringify(value)} does not match ${contract.requestIdPattern}`));
    }
    const rid = (json as { request_id?: unknown } | undefined)?.request_id;
    if (o.status >= 400 && rid !== undefined && rid !== o.headers.get("x-request-id")) out.push(v("response_headers_conformance", `body request_id ${String(rid)} differs from x-request-id ${o.headers.get("x-request-id")}`));
  }
  const errorBody = json as { validation_errors?: string[] | null; error?: string | null; message?: string } | undefined;
  const e = c.expect;
  const refused = e.kind === "positive" ? refusedIn(contract, op, c) : [];
  if (refused.length > 0) {
    // Schema-valid, but switching on options the contract marks `x-refused`: a 400 naming each.
    const lines = errorBody?.validation_errors ?? [];
    if (o.status !== 400) out.push(v("refused_option_rejection", `body switching on ${refused.join(", ")} (x-refused in the contract) answered ${o.status}, documented 400`));
    else {
      const unnamed = refused.filter((p) => !lines.some((l) => l.startsWith(`${p}: `)));
      if (unnamed.length) out.push(v("validation_errors_name_field", `no validation_errors entry names ${unnamed.join(", ")}: ${JSON.stringify(lines)}`));
      const other = lines.filter((l) => !refused.some((p) => l.startsWith(`${p}: `)) && !ruleOf(l));
      if (other.length) out.push(v("positive_data_acceptance", `schema-valid request refused with 400: ${other.join("; ")}`));
    }
  } else if (e.kind === "positive") {
    const ignored = markedIn("x-ignored", contract, op, c);
    if (ignored.length > 0 && o.status === 400) {
      const naming = (errorBody?.validation_errors ?? []).filter((l) => ignored.some((p) => l.startsWith(`${p}: `)));
      if (naming.length) out.push(v("ignored_option_acceptance", `options the contract accepts and ignores (x-ignored) refused: ${naming.join("; ")}`));
    }
    if (o.status >= 200 && o.status < 300 && spec?.headers["x-ignored-options"]) {
      const named = (o.headers.get("x-ignored-options") ?? "").split(",").filter(Boolean).sort();
      if (named.join(",") !== [...ignored].sort().join(",")) out.push(v("ignored_option_acceptance", `x-ignored-options ${JSON.stringify(named.join(","))}, the body switches on ${JSON.stringify(ignored.join(","))}`));
    }
    if (o.status === 400) {
      const lines = errorBody?.validation_errors ?? [];
      const unmatched = lines.filter((l) => !ruleOf(l));
      if (lines.length === 0 || unmatched.length > 0) out.push(v("positive_data_acceptance", `schema-valid request refused with 400: ${(unmatched.length ? unmatched : [errorBody?.message ?? o.text.slice(0, 120)]).join("; ")}`));
      else for (const l of lines) rules.push(ruleOf(l)!.rule);
    } else if (o.status === 401 || (o.status === 403 && /scope|ip_not_allowed/.test(errorBody?.error ?? "scope"))) {
      // (A 403 for another reason is state, e.g. deleting a running session, which the contract documents.)
      out.push(v("positive_data_acceptance", `valid key refused with ${o.status}: ${errorBody?.message ?? ""}`));
    } else if (o.status >= 300 && o.status !== 302 && o.status !== 403 && !BUSINESS.has(o.status)) {
      out.push(v("positive_data_acceptance", `schema-valid request answered ${o.status}`));
    }
    if (o.status === 500 && !/no inference endpoint/i.test(errorBody?.message ?? "")) out.push(v("not_a_server_error", `500 that is not the documented "no inference endpoint available": ${errorBody?.message ?? o.text.slice(0, 120)}`));
  } else if (e.kind === "negative") {
    const wants400 = documented.includes(400) && e.location !== "path";
    if (o.status < 400 || o.status >= 500) out.push(v("negative_data_rejection", `invalid request (${e.what}) accepted with ${o.status}`));
    else if (wants400 && o.status !== 400) out.push(v("negative_data_rejection", `invalid request (${e.what}) answered ${o.status}, documented 400`));
    if (o.status === 400 && e.field) {
      const lines = errorBody?.validation_errors ?? [];
      if (!lines.some((l) => l.includes(e.field!))) out.push(v("validation_errors_name_field", `no validation_errors entry names ${e.field}: ${JSON.stringify(lines)}`));
    }
    if (o.status === 400 && !(errorBody?.validation_errors?.length)) out.push(v("validation_errors_name_field", "400 without validation_errors"));
  } else {
    const want = e.mode === "unscoped" ? 403 : 401;
    if (o.status < 300) out.push(v("ignored_auth", `key ${e.mode} accepted with ${o.status}`));
    else if (o.status !== want) out.push(v("ignored_auth", `key ${e.mode} answered ${o.status}, documented ${want}`));
    if (o.status === 403 && !errorBody?.error) out.push(v("ignored_auth", "403 without an `error` reason"));
  }
  return { violations: out, rules };
}

/** Members of a positive case's JSON body that the contract marks `x-refused` (see refused.ts). */
function refusedIn(contract: Contract, op: OperationSpec, c: HttpCase): string[] {
  return markedIn("x-refused", contract, op, c);
}

/** Members of a case's JSON body set to a value the contract marks with `mark` (see refused.ts). */
function markedIn(mark: "x-refused" | "x-ignored", contract: Contract, op: OperationSpec, c: HttpCase): string[] {
  if (!op.body || c.body === undefined) return [];
  let body: unknown;
  try {
    body = JSON.parse(c.body);
  } catch {
    return [];
  }
  return markedMembers(mark, op.body.schema, body, (s) => derefSchema(contract, s));
}

// ---------------------------------------------------------------------------------------------
// Case generation

function deref(contract: Contract) {
  return (s: JsonSchema) => derefSchema(contract, s);
}

/** Query pairs of one parameter value, following its style. */
function serialize(p: ParameterSpec, value: unknown): [string, string][] {
  if (value === undefined) return [];
  if (p.style === "deepObject") {
    const base = p.name.replace(/\[[^\]]*\]$/, "");
    return Object.entries(value as Record<string, unknown>).map(([k, x]) => [`${base}[${k}]`, String(x)]);
  }
  if (Array.isArray(value)) return p.explode === false ? [[p.name, value.join(",")]] : value.map((x) => [p.name, String(x)]);
  return [[p.name, typeof value === "object" ? JSON.stringify(value) : String(value)]];
}

function paramArbitrary(contract: Contract, p: ParameterSpec, state: HttpState): fc.Arbitrary<unknown> {
  const s = derefSchema(contract, p.schema) as Record<string, any>;
  if (p.in === "path" && s.format === "uuid") {
    return fc.oneof(fc.uuid(), fc.nat().map((i) => state.knownIds[i % Math.max(1, state.knownIds.length)] ?? "00000000-0000-4000-8000-000000000000"));
  }
  const free = s.type === "string" && !s.format && !s.pattern && !s.enum;
  if (free && p.in === "query") {
    // Unconstrained strings: the documented examples, else values the service itself handed out.
    const examples = Object.values(p.examples ?? {}).map((e) => String(e.value));
    if (examples.length) return fc.constantFrom(...examples);
    return fc.nat().map((i) => {
      const seen = state.observedQuery[p.name] ?? [];
      return seen.length ? seen[i % seen.length]! : undefined;
    });
  }
  return arbitraryOf(p.schema, { deref: deref(contract), maxItems: 3 });
}

interface Parts {
  pathParams: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body?: unknown;
}

function partsArbitrary(contract: Contract, op: OperationSpec, state: HttpState): fc.Arbitrary<Parts> {
  const params: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  op.parameters.forEach((p, i) => {
    params[String(i)] = paramArbitrary(contract, p, state);
    if (p.required) required.push(String(i));
  });
  const paramsArb = fc.record(params, { requiredKeys: required });
  const bodyArb = op.body ? arbitraryOf(op.body.schema, { deref: deref(contract) }) : fc.constant(undefined);
  return fc.tuple(paramsArb, bodyArb).map(([vals, body]) => {
    const parts: Parts = { pathParams: {}, query: [], headers: {}, body };
    op.parameters.forEach((p, i) => {
      const value = (vals as Record<string, unknown>)[String(i)];
      if (value === undefined) return;
      if (p.in === "path") parts.pathParams[p.name] = String(value);
      else if (p.in === "query") parts.query.push(...serialize(p, value));
      else if (p.in === "header") parts.headers[p.name] = String(value);
    });
    return parts;
  });
}

function withBody(op: OperationSpec, parts: Parts, auth: AuthMode, expect: Expectation): HttpCase {
  const headers = { ...parts.headers };
  let body: string | undefined;
  if (op.body) {
    headers["content-type"] = op.body.contentType;
    body = JSON.stringify(parts.body);
  }
  return { operationId: op.operationId, pathParams: parts.pathParams, query: parts.query, headers, body, auth, expect };
}

export interface CaseFamily {
  name: string;
  arbitrary: fc.Arbitrary<HttpCase>;
}

/** Every family of cases of one operation (positive, negative body/query/path, malformed, auth). */
export function caseFamilies(contract: Contract, op: OperationSpec, state: HttpState, target: Target, servable?: Record<string, unknown>): CaseFamily[] {
  const d = deref(contract);
  // Bodies valid but for the values the contract marks refused (those are kept: a body switching
  // one on expects 400 naming it); the generator does not read `if`/`then`, so the rest is filtered.
  const bodySchema = op.body?.schema;
  const parts = partsArbitrary(contract, op, state).filter((p) => !bodySchema || contract.validate(bodySchema, withoutRefused(bodySchema, p.body, d)).ok);
  // Fully valid bodies, for the cases that break something else (query, path).
  const clean = bodySchema ? parts.map((p) => ({ ...p, body: withoutRefused(bodySchema, p.body, d) })) : parts;
  const families: CaseFamily[] = [{ name: `${op.operationId} positive`, arbitrary: parts.map((p) => withBody(op, p, "valid", { kind: "positive" })) }];
  if (op.body && servable && op.body.schema.$ref === "#/components/schemas/LiveSessionInit") {
    // Schema-valid bodies pinned to a model and language the deployment serves, without the values
    // the contract marks refused, so that 201s are common.
    const schema = op.body.schema;
    families.push({
      name: `${op.operationId} positive (servable model)`,
      arbitrary: parts.map((p) => ({ ...p, body: { ...(withoutRefused(schema, p.body, d) as object), ...servable } })).filter((p) => contract.validate(op.body!.schema, p.body).ok).map((p) => withBody(op, p, "valid", { kind: "positive" })),
    });
  }

  if (op.body) {
    const schema = op.body.schema;
    families.push({
      name: `${op.operationId} negative body`,
      arbitrary: parts.chain((p) => {
        const invalid = mutationsOf(schema, p.body, d).filter((m) => !contract.validate(schema, m.value).ok);
        if (invalid.length === 0) return fc.constant(null);
        return fc.constantFrom(...invalid).map((m) => withBody(op, { ...p, body: m.value }, "valid", { kind: "negative", what: m.kind, field: fieldName(m), location: "body" }));
      }).filter((c): c is HttpCase => c !== null),
    });
    const malformed = fc.constantFrom("{", '{"model":', "nul", "[1,2", "{'a':1}", '{"a":1}}', "", "\u0000");
    families.push({
      name: `${op.operationId} malformed body`,
      arbitrary: fc.tuple(parts, malformed).map(([p, raw]) => ({ ...withBody(op, p, "valid", { kind: "negative", what: "malformed JSON", field: null, location: "content" }), body: raw })),
    });
    families.push({
      name: `${op.operationId} wrong content type`,
      arbitrary: fc.tuple(parts, fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "application/xml")).map(([p, ct]) => {
        const c = withBody(op, p, "valid", { kind: "negative", what: `content-type ${ct}`, field: null, location: "content" });
        return { ...c, headers: { ...c.headers, "content-type": ct } };
      }),
    });
  }

  const queryMutable = op.parameters.filter((p) => p.in === "query" && parameterMutations(p.schema, d).length > 0);
  if (queryMutable.length) {
    families.push({
      name: `${op.operationId} negative query`,
      arbitrary: fc.tuple(clean, fc.constantFrom(...queryMutable.flatMap((p) => parameterMutations(p.schema, d).map((m) => ({ p, m }))))).map(([pp, { p, m }]) => {
        const query = pp.query.filter(([k]) => k !== p.name);
        query.push([p.name, m.value]);
        return withBody(op, { ...pp, query }, "valid", { kind: "negative", what: `${m.kind} ${p.name}=${m.value}`, field: p.name, location: "query" });
      }),
    });
  }

  const pathParams = op.parameters.filter((p) => p.in === "path");
  if (pathParams.length) {
    families.push({
      name: `${op.operationId} negative path`,
      arbitrary: fc.tuple(clean, fc.constantFrom("not-a-uuid", "0", "%00", "..", "00000000-0000-0000-0000-00000000000g", "a".repeat(300))).map(([p, bad]) => {
        const params = { ...p.pathParams };
        for (const pp of pathParams) params[pp.name] = bad;
        return withBody(op, { ...p, pathParams: params }, "valid", { kind: "negative", what: `path ${bad.slice(0, 20)}`, field: null, location: "path" });
      }),
    });
  }

  if (op.secured) {
    const modes: Exclude<AuthMode, "valid">[] = target.unscopedKey ? ["absent", "unknown", "unscoped"] : ["absent", "unknown"];
    families.push({ name: `${op.operationId} auth`, arbitrary: fc.tuple(parts, fc.constantFrom(...modes)).map(([p, mode]) => withBody(op, p, mode, { kind: "auth", mode })) });
  }
  return families;
}
