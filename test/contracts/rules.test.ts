/**
 * Every rule the service enforces on a request is in the contract: the test walks the server's
 * cross-field rules (server/options/rules.ts) and the options it refuses (x-refused), sends a body
 * breaking each to a running service, and validates the same body against the served /openapi.json
 * alone with an independent JSON Schema validator (@cfworker/json-schema, not the server's Ajv):
 * both must refuse it at the same field path. Rules JSON Schema cannot state are listed with why,
 * and the schema must accept their example (the gap is then real, and documented).
 */
import { Validator, type OutputUnit } from "@cfworker/json-schema";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { initRules } from "../../server/options/rules.ts";
import { refusedOptions } from "../../server/options/refused.ts";
import { startTestService, type TestService } from "../helpers/server.ts";

type Json = Record<string, any>;

let svc: TestService;
let doc: Json;
beforeAll(async () => {
  svc = await startTestService();
  doc = (await (await fetch(`${svc.running.url}/openapi.json`)).json()) as Json;
});
afterAll(() => svc.stop());

/** A validator of one schema of the served document, built only from that document. */
function validatorOf(pointer: string): Validator {
  return new Validator({ ...doc, $ref: pointer } as never, "2020-12", false);
}

/** Field paths (`a.b`, as in `validation_errors`) of the leaf errors of a cfworker result. */
function fieldsOf(errors: OutputUnit[]): string[] {
  const out = new Set<string>();
  for (const e of errors) {
    const at = e.instanceLocation.replace(/^#\/?/, "").split("/").filter(Boolean);
    if (e.keyword === "required") {
      const missing = /required property "([^"]+)"/.exec(e.error)?.[1];
      if (missing) out.add([...at, missing].join("."));
    } else if (!["properties", "allOf", "if", "then", "$ref", "anyOf", "oneOf"].includes(e.keyword)) out.add(at.join("."));
  }
  return [...out];
}

async function post(body: unknown): Promise<{ status: number; lines: string[] }> {
  const res = await fetch(`${svc.running.url}/v2/live`, { method: "POST", headers: { "content-type": "application/json", "x-service-key": svc.key }, body: JSON.stringify(body) });
  const json = (await res.json()) as { validation_errors?: string[] | null };
  return { status: res.status, lines: json.validation_errors ?? [] };
}

const fieldOfLine = (line: string) => line.slice(0, line.indexOf(": "));

/** A body breaking each rule of server/options/rules.ts, and only it (keyed by the rule's field). */
const breaking: Record<string, Json> = {
  bit_depth: { model: "solaria-1", encoding: "wav/ulaw", bit_depth: 16 },
  callback_config: { model: "solaria-1", callback: true },
  "language_config.languages": { model: "trantoria-1", language_config: { languages: [] } },
  "realtime_processing.translation_config": { model: "solaria-3", realtime_processing: { translation: true } },
  "realtime_processing.custom_vocabulary_config": { model: "solaria-1", realtime_processing: { custom_vocabulary: true } },
  "realtime_processing.custom_spelling_config": { model: "solaria-1", realtime_processing: { custom_spelling: true } },
  "diarization_config.number_of_speakers": { model: "solaria-1", diarization: true, diarization_config: { number_of_speakers: 3, max_speakers: 2 } },
};

describe("every rule the server enforces on POST /v2/live has a counterpart in the served contract", () => {
  test("each rule has a breaking example here, and breaks on it (a new rule without one fails)", () => {
    expect(Object.keys(breaking).sort()).toEqual(initRules.map((r) => r.field).sort());
    for (const rule of initRules) expect(rule.check(breaking[rule.field] as never)).toStartWith(`${rule.field}: `);
  });

  test.each(initRules.filter((r) => r.inSchema).map((r) => [r.field, r.where] as const))("%s: refused by the server and by the contract alone (%s)", async (field) => {
    const body = breaking[field]!;
    const result = validatorOf("#/components/schemas/LiveSessionInit").validate(body);
    expect(result.valid).toBe(false);
    const schemaFields = fieldsOf(result.errors);
    expect(schemaFields).toContain(field);
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.lines.map(fieldOfLine)).toEqual([field]);
    expect(schemaFields).toEqual([field]);
  });

  test("trantoria-1 with no language_config at all: the same path on both sides", async () => {
    const body = { model: "trantoria-1" };
    const result = validatorOf("#/components/schemas/LiveSessionInit").validate(body);
    expect(result.valid).toBe(false);
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.lines.map(fieldOfLine)).toEqual(fieldsOf(result.errors));
    expect(res.lines[0]).toContain("trantoria-1");
  });

  test.each(refusedOptions.flatMap((r) => r.values.map((v) => [r.path.join("."), v] as const)))("x-refused %s: %p refused by the server and by the contract alone", async (at, value) => {
    const path = at.split(".");
    const body: Json = path[1] === "translation_config" ? { model: "solaria-3", realtime_processing: { translation: true, translation_config: { target_languages: ["en"] } } } : { model: "solaria-1" };
    let o = body;
    for (const k of path.slice(0, -1)) o = o[k] ??= {};
    o[path[path.length - 1]!] = value;
    const result = validatorOf("#/components/schemas/LiveSessionInit").validate(body);
    expect(result.valid).toBe(false);
    expect(fieldsOf(result.errors)).toEqual([at]);
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.lines).toEqual([expect.stringMatching(new RegExp(`^${at.replaceAll(".", "\\.")}: .* is not offered: `))]);
  });

  test.each(initRules.filter((r) => !r.inSchema).map((r) => [r.field, r.where] as const))("%s: not expressible in JSON Schema (%s): the schema accepts it, the server refuses it, the description says so", async (field, where) => {
    expect(where.length).toBeGreaterThan(40);
    const body = breaking[field]!;
    expect(validatorOf("#/components/schemas/LiveSessionInit").validate(body).valid).toBe(true);
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.lines.map(fieldOfLine)).toEqual([field]);
    expect(JSON.stringify(doc.components.schemas.DiarizationConfig.description)).toContain("must not exceed `max_speakers`");
  });
});

describe("GET /v2/live: cursor", () => {
  const cursorSchema = () => {
    const p = (doc.paths["/v2/live"].get.parameters as Json[]).find((x) => x.name === "cursor")!;
    return new Validator(p.schema, "2020-12", false);
  };
  const list = async (q: string) => {
    const res = await fetch(`${svc.running.url}/v2/live?${q}`, { headers: { "x-service-key": svc.key } });
    return { status: res.status, body: (await res.json()) as { validation_errors?: string[] | null; next?: string | null } };
  };

  test.each(["", "forged", "1.x", "12345678901234567.1"])("cursor=%p: refused by the contract's schema and by the server, naming cursor", async (value) => {
    expect(cursorSchema().validate(value).valid).toBe(false);
    const res = await list(`cursor=${encodeURIComponent(value)}`);
    expect(res.status).toBe(400);
    expect((res.body.validation_errors ?? []).map(fieldOfLine)).toEqual(["cursor"]);
  });

  test("a cursor of the documented form pages on (200); `next` has that form", async () => {
    for (let i = 0; i < 3; i++) expect((await post({ model: "solaria-1" })).status).toBeLessThan(600);
    const first = await list("limit=1");
    expect(first.status).toBe(200);
    const next = first.body.next ? new URL(first.body.next, svc.running.url).searchParams.get("cursor") : null;
    if (next !== null) expect(cursorSchema().validate(next).valid).toBe(true);
    expect(cursorSchema().validate("1767225600000.42").valid).toBe(true);
    expect((await list("cursor=1767225600000.42")).status).toBe(200);
  });
});

describe("GET /v2/live: custom_metadata (one deepObject parameter)", () => {
  const param = () => (doc.paths["/v2/live"].get.parameters as Json[]).find((x) => x.name === "custom_metadata")!;
  const list = async (q: string) => {
    const res = await fetch(`${svc.running.url}/v2/live?${q}`, { headers: { "x-service-key": svc.key } });
    return { status: res.status, body: (await res.json()) as { validation_errors?: string[] | null } };
  };
  /** The parameter's deepObject serialization (OpenAPI 3.1: `name[key]=value`, one pair per member). */
  const deepObject = (value: Record<string, string>) => Object.entries(value).map(([k, v]) => `custom_metadata[${encodeURIComponent(k)}]=${encodeURIComponent(v)}`).join("&");

  test("the only parameter of that name, in deepObject style", () => {
    expect((doc.paths["/v2/live"].get.parameters as Json[]).filter((x) => String(x.name).startsWith("custom_metadata")).map((x) => [x.name, x.style, x.explode])).toEqual([["custom_metadata", "deepObject", true]]);
  });

  test.each<Record<string, string>>([{ "a\u0000b": "x" }, { "\u0000": "x" }])("key %j: refused by the contract's schema and by the server, naming custom_metadata", async (value) => {
    expect(new Validator(param().schema, "2020-12", false).validate(value).valid).toBe(false);
    const res = await list(deepObject(value));
    expect(res.status).toBe(400);
    expect((res.body.validation_errors ?? []).map(fieldOfLine)).toEqual(["custom_metadata"]);
  });

  test.each<Record<string, string>>([{ user: "alice" }, { "key][name": "v", "a[b]": "", "": "x" }])("schema-valid %j, serialized as deepObject: 200", async (value) => {
    expect(new Validator(param().schema, "2020-12", false).validate(value).valid).toBe(true);
    expect((await list(deepObject(value))).status).toBe(200);
  });
});

describe("POST /v2/live?region= a region this address does not serve", () => {
  test("500 no_inference_endpoint, documented for the operation with the error body and an example", async () => {
    let spec = doc.paths["/v2/live"].post.responses["500"] as Json;
    if (spec.$ref) spec = doc.components.responses[spec.$ref.split("/").pop()];
    const media = spec.content["application/json"];
    expect(Object.values(media.examples as Json).some((e: Json) => e.value.error === "no_inference_endpoint" && /region/.test(e.value.message))).toBe(true);
    const res = await fetch(`${svc.running.url}/v2/live?region=us-west`, { method: "POST", headers: { "content-type": "application/json", "x-service-key": svc.key }, body: "{}" });
    expect(res.status).toBe(500);
    const body = (await res.json()) as Json;
    expect(new Validator({ ...doc, ...media.schema } as never, "2020-12", false).validate(body).valid).toBe(true);
    for (const example of Object.values(media.examples as Json)) expect(new Validator({ ...doc, ...media.schema } as never, "2020-12", false).validate((example as Json).value).valid).toBe(true);
    expect(body.error).toBe("no_inference_endpoint");
  });
});
