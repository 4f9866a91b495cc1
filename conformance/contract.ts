/**
 * The contract as the suite sees it, derived at runtime from the bundled OpenAPI and AsyncAPI
 * documents (read from `generated/` or fetched from a deployment's `/openapi.json` and
 * `/asyncapi.json`): HTTP operations with their parameters, bodies and documented responses,
 * WebSocket messages and close codes, callback envelopes, and Ajv validators of every schema.
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ErrorObject, ValidateFunction } from "ajv";
import path from "node:path";

export type JsonSchema = Record<string, unknown>;
type Json = Record<string, any>;

export interface ParameterSpec {
  name: string;
  in: "query" | "path" | "header";
  required: boolean;
  style?: string;
  explode?: boolean;
  schema: JsonSchema;
  examples?: Record<string, { value?: unknown }>;
}

export interface ResponseSpec {
  /** Media type of the body, or null when the response has no body. */
  contentType: string | null;
  /** Schema of the body (resolved), or null. */
  schema: JsonSchema | null;
  /** Header names (lower case) the contract documents, and which of them are required. */
  headers: Record<string, { required: boolean; schema: JsonSchema | null }>;
}

export interface OperationSpec {
  operationId: string;
  method: string;
  /** OpenAPI path template, e.g. `/v2/live/{id}`. */
  path: string;
  parameters: ParameterSpec[];
  body: { required: boolean; contentType: string; schema: JsonSchema } | null;
  responses: Record<number, ResponseSpec>;
  /** Whether the operation requires the API key (global or per-operation security). */
  secured: boolean;
  /** Header name carrying the API key. */
  keyHeader: string | null;
}

export interface WsSpec {
  path: string;
  tokenParam: string;
  /** Client message schemas keyed by `type`, plus whether binary frames are accepted. */
  clientMessages: Record<string, JsonSchema>;
  binaryAudio: boolean;
  /** Server message types sent on the WebSocket (callback-only ones excluded). */
  serverTypes: string[];
  callbackOnlyTypes: string[];
  closeCodes: { code: number; reasonPrefix?: string }[];
  handshakeRefusals: number[];
}

export interface Validation {
  ok: boolean;
  errors: string[];
}

export interface Contract {
  openapi: Json;
  asyncapi: Json;
  operations: OperationSpec[];
  ws: WsSpec;
  /** Resolves a `$ref` (OpenAPI document) to its target, following chains. */
  resolve<T = Json>(node: T): T;
  /** Validates against a schema of the OpenAPI document (object or `$ref`). */
  validate(schema: JsonSchema, value: unknown): Validation;
  /** Validates a server WebSocket message by its `type`. */
  validateServerMessage(message: unknown): Validation;
  /** Validates a callback envelope by its `event`. */
  validateCallback(envelope: unknown): Validation;
  /** Event names of callback envelopes. */
  callbackEvents: string[];
  /** Pattern of request identifiers (`x-request-id`), from the RequestId header schema. */
  requestIdPattern: RegExp | null;
}

/** `generated/` of the repository, or the packaged suite's own folder (`dist/`, where the build copies the documents). */
const documentDirs = [path.resolve(import.meta.dir, "../generated"), import.meta.dir];

/** Reads the bundled documents from `generated/` (or those packaged with the suite). */
export async function localDocuments(): Promise<{ openapi: Json; asyncapi: Json }> {
  const dir = documentDirs.find((d) => Bun.file(path.join(d, "openapi.json")).size > 0) ?? documentDirs[0]!;
  const openapi = await Bun.file(path.join(dir, "openapi.json")).json();
  const asyncapi = await Bun.file(path.join(dir, "asyncapi.json")).json();
  return { openapi, asyncapi };
}

/** Fetches the documents a deployment serves (`/openapi.json`, then the AsyncAPI path it names). */
export async function remoteDocuments(baseUrl: string): Promise<{ openapi: Json; asyncapi: Json }> {
  const get = async (p: string) => {
    const res = await fetch(new URL(p, baseUrl));
    if (!res.ok) throw new Error(`GET ${p} answered ${res.status}`);
    return (await res.json()) as Json;
  };
  const openapi = await get("/openapi.json");
  const asyncapi = await get(String(openapi["x-websocket"]?.asyncapi ?? "/asyncapi.json"));
  return { openapi, asyncapi };
}

function pointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith("#/")) throw new Error(`external $ref not supported: ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    node = (node as Json | undefined)?.[key];
    if (node === undefined) throw new Error(`unresolvable $ref ${ref}`);
  }
  return node;
}

/** Copies a schema tree, rewriting `#/components/schemas/X` to `#/$defs/X`. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === "object") {
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = k === "$ref" && typeof v === "string" ? v.replace("#/components/schemas/", "#/$defs/") : rewriteRefs(v);
    }
    return out;
  }
  return node;
}

function errorLines(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? e.keyword}${e.keyword === "additionalProperties" ? ` (${String((e.params as Json).additionalProperty)})` : ""}`);
}

/** Builds the contract model from the two documents. */
export function buildContract(docs: { openapi: Json; asyncapi: Json }): Contract {
  const { openapi, asyncapi } = docs;
  const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true, discriminator: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat("binary", true);
  const OAS = "urn:conformance:openapi";
  const AAS = "urn:conformance:asyncapi";
  ajv.addSchema({ $id: OAS, $defs: rewriteRefs(openapi.components?.schemas ?? {}) } as object);
  ajv.addSchema({ $id: AAS, $defs: rewriteRefs(asyncapi.components?.schemas ?? {}) } as object);

  const resolveIn = <T>(doc: Json, node: T): T => {
    let cur: any = node;
    for (let i = 0; i < 32 && cur && typeof cur === "object" && typeof cur.$ref === "string" && !cur.$ref.startsWith("#/components/schemas/"); i++) {
      cur = pointer(doc, cur.$ref);
    }
    return cur as T;
  };
  const resolve = <T>(node: T): T => resolveIn(openapi, node);

  const compiled = new Map<unknown, ValidateFunction>();
  const compileIn = (base: string, schema: JsonSchema): ValidateFunction => {
    let v = compiled.get(schema);
    if (v) return v;
    const ref = typeof schema.$ref === "string" ? schema.$ref : null;
    if (ref?.startsWith("#/components/schemas/")) {
      v = ajv.getSchema(`${base}#/$defs/${ref.slice("#/components/schemas/".length)}`)!;
    } else {
      // inline schema: compiled with its refs pointing into the document's $defs
      v = ajv.compile(rewriteInline(schema, base) as object);
    }
    compiled.set(schema, v);
    return v;
  };
  const rewriteInline = (schema: unknown, base: string): unknown => {
    if (Array.isArray(schema)) return schema.map((s) => rewriteInline(s, base));
    if (schema && typeof schema === "object") {
      const out: Json = {};
      for (const [k, v] of Object.entries(schema)) out[k] = k === "$ref" && typeof v === "string" ? v.replace("#/components/schemas/", `${base}#/$defs/`) : rewriteInline(v, base);
      return out;
    }
    return schema;
  };
  const run = (v: ValidateFunction, value: unknown): Validation => (v(value) ? { ok: true, errors: [] } : { ok: false, errors: errorLines(v.errors) });

  // HTTP operations
  const operations: OperationSpec[] = [];
  const globalSecurity: Json[] = openapi.security ?? [];
  const schemes: Json = openapi.components?.securitySchemes ?? {};
  for (const [p, rawItem] of Object.entries<Json>(openapi.paths ?? {})) {
    const item = resolve(rawItem);
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const op: Json | undefined = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((x: Json) => resolve(x));
      const parameters: ParameterSpec[] = params.map((x: Json) => ({
        name: x.name,
        in: x.in,
        required: x.required === true,
        style: x.style,
        explode: x.explode,
        schema: x.schema ?? {},
        examples: x.examples,
      }));
      let body: OperationSpec["body"] = null;
      if (op.requestBody) {
        const rb = resolve(op.requestBody as Json);
        const [contentType, media] = Object.entries<Json>(rb.content ?? {})[0] ?? [];
        if (contentType) body = { required: rb.required === true, contentType, schema: media?.schema ?? {} };
      }
      const responses: Record<number, ResponseSpec> = {};
      for (const [status, rawResp] of Object.entries<Json>(op.responses ?? {})) {
        const resp = resolve(rawResp);
        const [contentType, media] = Object.entries<Json>(resp.content ?? {})[0] ?? [null, null];
        const headers: ResponseSpec["headers"] = {};
        for (const [h, rawH] of Object.entries<Json>(resp.headers ?? {})) {
          const hd = resolve(rawH);
          headers[h.toLowerCase()] = { required: hd.required === true || h.toLowerCase() === "x-request-id", schema: hd.schema ?? null };
        }
        responses[Number(status)] = { contentType: contentType ?? null, schema: media?.schema ?? null, headers };
      }
      const security: Json[] = op.security ?? globalSecurity;
      const schemeName = security.flatMap((s) => Object.keys(s))[0];
      const scheme = schemeName ? schemes[schemeName] : undefined;
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path: p,
        parameters,
        body,
        responses,
        secured: Boolean(scheme),
        keyHeader: scheme?.type === "apiKey" && scheme.in === "header" ? String(scheme.name).toLowerCase() : null,
      });
    }
  }

  // WebSocket, from the AsyncAPI document
  const channel: Json = Object.values<Json>(asyncapi.channels ?? {}).find((c) => c.bindings?.ws) ?? {};
  const messages: Json = asyncapi.components?.messages ?? {};
  const clientMessages: Record<string, JsonSchema> = {};
  let binaryAudio = false;
  const serverTypes: string[] = [];
  const callbackOnlyTypes: string[] = [];
  const serverValidators = new Map<string, ValidateFunction>();
  const callbackValidators = new Map<string, ValidateFunction>();
  const typeConst = (schemaRef: JsonSchema, member: string): string | null => {
    const target = resolveIn(asyncapi, schemaRef) as Json;
    const s = typeof target.$ref === "string" ? (pointer(asyncapi, target.$ref) as Json) : target;
    const c = s?.properties?.[member]?.const;
    return typeof c === "string" ? c : null;
  };
  for (const m of Object.values<Json>(messages)) {
    const payload = m.payload as JsonSchema;
    if (m["x-direction"] === "client") {
      if (m.contentType === "application/octet-stream") binaryAudio = true;
      else {
        const t = typeConst(payload, "type");
        if (t) clientMessages[t] = payload;
      }
    } else if (m["x-direction"] === "server") {
      const t = typeConst(payload, "type");
      if (!t) continue;
      if (m["x-delivery"] === "callback-only") callbackOnlyTypes.push(t);
      else serverTypes.push(t);
      serverValidators.set(t, compileIn(AAS, payload));
    } else if (m["x-direction"] === "callback") {
      const e = typeConst(payload, "event");
      if (e) callbackValidators.set(e, compileIn(AAS, payload));
    }
  }
  const ws: WsSpec = {
    path: String(channel.address ?? "/v2/live"),
    tokenParam: Object.keys(channel.bindings?.ws?.query?.properties ?? { token: 1 })[0]!,
    clientMessages,
    binaryAudio,
    serverTypes,
    callbackOnlyTypes,
    closeCodes: (channel["x-close-codes"] ?? []).map((c: Json) => ({ code: c.code, reasonPrefix: c.reasonPrefix })),
    handshakeRefusals: (channel["x-handshake-refusals"] ?? []).map((r: Json) => r.status),
  };

  const ridHeader = resolve((openapi.components?.headers?.RequestId ?? {}) as Json);
  const ridSchema = ridHeader.schema ? (resolve(ridHeader.schema) as Json) : null;
  const ridTarget = ridSchema?.$ref ? (pointer(openapi, ridSchema.$ref) as Json) : ridSchema;
  const requestIdPattern = typeof ridTarget?.pattern === "string" ? new RegExp(ridTarget.pattern) : null;

  return {
    openapi,
    asyncapi,
    operations,
    ws,
    resolve,
    validate: (schema, value) => run(compileIn(OAS, schema), value),
    validateServerMessage(message) {
      const t = (message as Json | null)?.type;
      const v = typeof t === "string" ? serverValidators.get(t) : undefined;
      if (!v) return { ok: false, errors: [`type ${JSON.stringify(t)} is not a documented server message`] };
      return run(v, message);
    },
    validateCallback(envelope) {
      const e = (envelope as Json | null)?.event;
      const v = typeof e === "string" ? callbackValidators.get(e) : undefined;
      if (!v) return { ok: false, errors: [`event ${JSON.stringify(e)} is not a documented callback`] };
      return run(v, envelope);
    },
    callbackEvents: [...callbackValidators.keys()],
    requestIdPattern,
  };
}

/** Looks a component schema of the OpenAPI document up (following `$ref`s). */
export function derefSchema(contract: Contract, schema: JsonSchema): JsonSchema {
  let cur: Json = schema;
  for (let i = 0; i < 32 && typeof cur?.$ref === "string"; i++) cur = pointer(contract.openapi, cur.$ref) as Json;
  return cur;
}
