/**
 * WebSocket conformance, from the AsyncAPI document: generated client sequences (binary and base64
 * audio of silence, tones and noise, stop_recording) and malformed ones (bad JSON, unknown type or
 * member, bad base64, oversized frames, stop twice, audio after stop). Every server message must
 * validate, arrive in an allowed order with monotonic acknowledgment ranges, and every close code
 * must be documented; healthy sessions streamed alongside must complete unaffected.
 */
import fc from "fast-check";
import type { Contract } from "./contract.ts";
import type { Target } from "./http.ts";
import type { KnownIssue } from "./known-issues.ts";
import { runProperty, type CaseOutcome } from "./property.ts";
import type { Report, Violation } from "./report.ts";

export type Audio = { kind: "silence" | "tone" | "noise"; ms: number; form: "binary" | "json" };
export type Malformed = "bad_json" | "unknown_type" | "unknown_member" | "bad_base64" | "empty_chunk" | "oversized" | "huge_frame" | "non_object" | "wrong_data_type";
export type Step = { audio: Audio } | { malformed: Malformed };

export interface WsScript {
  sampleRate: 8000 | 16000 | 48000;
  channels: 1 | 2;
  flags: Record<string, boolean>;
  steps: Step[];
  /** What follows the first stop_recording. */
  after: "nothing" | "stop_twice" | "audio_after_stop";
}

export interface SessionTrace {
  messages: unknown[];
  /** Raw text of frames that were not JSON. */
  unparsable: string[];
  close: { code: number; reason: string } | null;
  bytesSent: number;
  malformedSent: number;
  refusedStatus?: number;
}

/** Just over 1 MiB (a common frame limit); and far over it. */
const OVERSIZED_BYTES = (1 << 20) + 1024;
const HUGE_BYTES = 3 << 20;

/** PCM16 little-endian audio of one step. */
export function synth(a: Audio, sampleRate: number, channels: number, phase = 0): Uint8Array {
  const frames = Math.round((a.ms / 1000) * sampleRate);
  const out = new Int16Array(frames * channels);
  let seed = 12345 + a.ms;
  for (let i = 0; i < frames; i++) {
    let x = 0;
    if (a.kind === "tone") x = Math.round(8000 * Math.sin((2 * Math.PI * 440 * (i + phase)) / sampleRate));
    else if (a.kind === "noise") {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      x = (seed % 4000) - 2000;
    }
    for (let c = 0; c < channels; c++) out[i * channels + c] = x;
  }
  return new Uint8Array(out.buffer);
}

function malformedFrame(m: Malformed): string | Uint8Array {
  switch (m) {
    case "bad_json":
      return '{"type":"audio_chunk","data":';
    case "unknown_type":
      return JSON.stringify({ type: "not_a_message", data: {} });
    case "unknown_member":
      return JSON.stringify({ type: "audio_chunk", data: { chunk: "AAAA" }, zz_unknown_member: 1 });
    case "bad_base64":
      return JSON.stringify({ type: "audio_chunk", data: { chunk: "!!!not base64***" } });
    case "empty_chunk":
      return JSON.stringify({ type: "audio_chunk", data: { chunk: "" } });
    case "wrong_data_type":
      return JSON.stringify({ type: "audio_chunk", data: "AAAA" });
    case "non_object":
      return "[1,2,3]";
    case "oversized":
      return new Uint8Array(OVERSIZED_BYTES);
    case "huge_frame":
      return new Uint8Array(HUGE_BYTES);
  }
}

const audioArb: fc.Arbitrary<Audio> = fc.record({
  kind: fc.constantFrom("silence" as const, "tone" as const, "noise" as const),
  ms: fc.integer({ min: 20, max: 400 }),
  form: fc.constantFrom("binary" as const, "json" as const),
});
const malformedArb = fc.constantFrom<Malformed>("bad_json", "unknown_type", "unknown_member", "bad_base64", "empty_chunk", "oversized", "non_object", "wrong_data_type", "huge_frame");

/** Flags of messages_config other than those the order checks need (always on). */
function flagsArb(contract: Contract): fc.Arbitrary<Record<string, boolean>> {
  const mc = contract.openapi.components?.schemas?.MessagesConfig?.properties ?? {};
  const model: Record<string, fc.Arbitrary<boolean>> = {};
  for (const k of Object.keys(mc)) model[k] = fc.boolean();
  return fc.record(model).map((f) => ({ ...f, receive_lifecycle_events: true, receive_acknowledgments: true, receive_errors: true }));
}

export function scriptArbitrary(contract: Contract, malformed: boolean): fc.Arbitrary<WsScript> {
  const step: fc.Arbitrary<Step> = malformed ? fc.oneof(audioArb.map((audio) => ({ audio })), malformedArb.map((m) => ({ malformed: m }))) : audioArb.map((audio) => ({ audio }));
  return fc.record({
    sampleRate: fc.constantFrom(16000 as const, 8000 as const, 48000 as const),
    channels: fc.constantFrom(1 as const, 2 as const),
    flags: flagsArb(contract),
    steps: fc.array(step, { minLength: 1, maxLength: 6 }).filter((s) => !malformed || s.some((x) => "malformed" in x)),
    after: malformed ? fc.constantFrom("nothing" as const, "stop_twice" as const, "audio_after_stop" as const) : fc.constant("nothing" as const),
  });
}

/** Creates a session through the HTTP API; returns its WebSocket URL (rebased on the target) or the refusal. */
export async function createSession(target: Target, body: Record<string, unknown>): Promise<{ id: string; url: string } | { status: number; text: string }> {
  const res = await fetch(new URL("/v2/live", target.baseUrl), { method: "POST", headers: { "content-type": "application/json", "x-service-key": target.key }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 201) return { status: res.status, text };
  const created = JSON.parse(text) as { id: string; url: string };
  return { id: created.id, url: created.url };
}

/** The WebSocket address of a session url, on the target's origin (the suite talks to the target only). */
export function wsUrlOnTarget(target: Target, url: string): string {
  const u = new URL(url);
  const base = new URL(target.baseUrl);
  u.protocol = base.protocol === "https:" ? "wss:" : "ws:";
  u.host = base.host;
  return u.toString();
}

/** Streams a script over one WebSocket and records everything the server sends. */
export async function streamScript(url: string, script: WsScript, timeoutMs = 20000, paceMs = 0): Promise<SessionTrace> {
  const trace: SessionTrace = { messages: [], unparsable: [], close: null, bytesSent: 0, malformedSent: 0 };
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  const closed = new Promise<void>((resolve) => {
    ws.addEventListener("close", (e) => {
      trace.close = { code: e.code, reason: e.reason };
      resolve();
    });
  });
  ws.addEventListener("message", (e) => {
    const text = typeof e.data === "string" ? e.data : new TextDecoder().decode(e.data as ArrayBuffer);
    try {
      trace.messages.push(JSON.parse(text));
    } catch {
      trace.unparsable.push(text.slice(0, 200));
    }
  });
  const opened = await Promise.race([
    new Promise<boolean>((r) => ws.addEventListener("open", () => r(true), { once: true })),
    closed.then(() => false),
    Bun.sleep(timeoutMs).then(() => false),
  ]);
  if (opened) {
    const sendAudio = (a: Audio) => {
      const pcm = synth(a, script.sampleRate, script.channels, trace.bytesSent / 2);
      if (a.form === "binary") ws.send(pcm);
      else ws.send(JSON.stringify({ type: "audio_chunk", data: { chunk: Buffer.from(pcm).toString("base64") } }));
      trace.bytesSent += pcm.byteLength;
    };
    for (const s of script.steps) {
      if (ws.readyState !== WebSocket.OPEN) break;
      if ("audio" in s) sendAudio(s.audio);
      else {
        ws.send(malformedFrame(s.malformed));
        trace.malformedSent++;
      }
      if (paceMs) await Bun.sleep(paceMs);
    }
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "stop_recording" }));
    if (ws.readyState === WebSocket.OPEN && script.after === "stop_twice") ws.send(JSON.stringify({ type: "stop_recording" }));
    if (ws.readyState === WebSocket.OPEN && script.after === "audio_after_stop") ws.send(synth({ kind: "tone", ms: 100, form: "binary" }, script.sampleRate, script.channels));
  }
  const done = await Promise.race([closed.then(() => true), Bun.sleep(timeoutMs).then(() => false)]);
  if (!done) ws.close();
  return trace;
}

type Msg = { type?: string; data?: any };

/** Checks one session's trace against the contract. */
export function checkTrace(contract: Contract, script: WsScript, trace: SessionTrace): Violation[] {
  const out: Violation[] = [];
  const v = (check: Violation["check"], message: string) => out.push({ check, message });
  for (const t of trace.unparsable) v("ws_message_schema", `server frame is not JSON: ${t}`);
  const msgs = trace.messages as Msg[];
  msgs.forEach((m, i) => {
    const r = contract.validateServerMessage(m);
    if (!r.ok) v("ws_message_schema", `message #${i} (${String(m?.type)}): ${r.errors.join("; ")}`);
    if (typeof m?.type === "string" && contract.ws.callbackOnlyTypes.includes(m.type)) v("ws_message_order", `${m.type} is callback-only but was sent on the WebSocket`);
  });
  const types = msgs.map((m) => m?.type);
  const end = types.indexOf("end_session");
  if (end >= 0 && end !== types.length - 1) v("ws_message_order", `messages after end_session: ${types.slice(end + 1).join(",")}`);
  if (script.flags.receive_lifecycle_events && types.length && types[0] !== "start_recording") v("ws_message_order", `first message is ${types[0]}, expected start_recording`);
  const stopAck = types.indexOf("stop_recording");
  const endRec = types.indexOf("end_recording");
  if (endRec >= 0 && stopAck >= 0 && endRec < stopAck) v("ws_message_order", "end_recording before the stop_recording acknowledgment");
  for (const post of ["post_transcript", "post_final_transcript"]) {
    const at = types.indexOf(post);
    if (at >= 0 && endRec >= 0 && at < endRec) v("ws_message_order", `${post} before end_recording`);
  }
  if (types.filter((t) => t === "end_session").length > 1) v("ws_message_order", "end_session sent twice");
  // Acknowledgments: ranges well-formed, contiguous or at least monotonic, within what was sent.
  let prev: [number, number] | null = null;
  let prevT: [number, number] | null = null;
  for (const m of msgs.filter((x) => x?.type === "audio_chunk")) {
    const b = m.data?.byte_range as [number, number] | undefined;
    const t = m.data?.time_range as [number, number] | undefined;
    if (!Array.isArray(b) || !Array.isArray(t)) continue;
    if (b[0] > b[1]) v("ws_ack_ranges", `byte_range ${JSON.stringify(b)} is reversed`);
    if (t[0] > t[1]) v("ws_ack_ranges", `time_range ${JSON.stringify(t)} is reversed`);
    if (prev && b[0] < prev[1]) v("ws_ack_ranges", `byte_range ${JSON.stringify(b)} goes back before ${prev[1]}`);
    if (prevT && t[0] < prevT[1]) v("ws_ack_ranges", `time_range ${JSON.stringify(t)} goes back before ${prevT[1]}`);
    if (b[1] > trace.bytesSent) v("ws_ack_ranges", `byte_range ends at ${b[1]}, beyond the ${trace.bytesSent} bytes sent`);
    prev = b;
    prevT = t;
  }
  // Close codes.
  if (!trace.close) v("ws_close_code", "the session did not close within the time limit after stop_recording");
  else {
    const doc = contract.ws.closeCodes.find((c) => c.code === trace.close!.code);
    if (!doc) v("ws_close_code", `close code ${trace.close.code} (${trace.close.reason}) is not documented (${contract.ws.closeCodes.map((c) => c.code).join(", ")})`);
    if (trace.close.code === 1000 && script.flags.receive_lifecycle_events && end < 0) v("ws_message_order", "closed with 1000 without end_session");
    if (trace.close.code !== 1000 && trace.close.code !== 1012) v("ws_isolation", `the session did not end normally: ${trace.close.code} ${trace.close.reason}`);
  }
  if (trace.malformedSent > 0 && script.flags.receive_errors && !types.includes("error")) v("ws_error_reported", `${trace.malformedSent} malformed frame(s) sent, no error message received`);
  if (stopAck < 0 && trace.close?.code === 1000 && script.flags.receive_acknowledgments) v("ws_message_order", "stop_recording was not acknowledged");
  return out;
}

export interface WsRunOptions {
  contract: Contract;
  target: Target;
  report: Report;
  /** Model and languages the deployment serves. */
  init: Record<string, unknown>;
  seed: number;
  runs: number;
  concurrency: number;
  issues?: KnownIssue[];
}

function describeScript(s: WsScript): string {
  const steps = s.steps.map((x) => ("audio" in x ? `${x.audio.form}:${x.audio.kind}:${x.audio.ms}ms` : `MALFORMED:${x.malformed}`)).join(" → ");
  return `session ${s.sampleRate} Hz × ${s.channels} ch, messages_config ${JSON.stringify(s.flags)}\n  ${steps} → stop_recording${s.after === "nothing" ? "" : ` → ${s.after}`}`;
}

/** One session of a script: create, stream, check. */
export async function runScript(o: Pick<WsRunOptions, "contract" | "target" | "init" | "report">, script: WsScript): Promise<CaseOutcome> {
  const body = { ...o.init, encoding: "wav/pcm", bit_depth: 16, sample_rate: script.sampleRate, channels: script.channels, messages_config: script.flags };
  const created = await createSession(o.target, body);
  const describe = `POST /v2/live ${JSON.stringify(body)}\n${describeScript(script)}`;
  if (!("id" in created)) {
    // A business refusal (e.g. 429 while other sessions finish) is not a protocol failure.
    if ([429, 500, 503].includes(created.status)) return { violations: [], describe };
    return { violations: [{ check: "positive_data_acceptance", message: `session could not be created: ${created.status} ${created.text.slice(0, 200)}` }], describe };
  }
  const trace = await streamScript(wsUrlOnTarget(o.target, created.url), script);
  if (trace.close) o.report.closeCodes[trace.close.code] = (o.report.closeCodes[trace.close.code] ?? 0) + 1;
  const types = (trace.messages as Msg[]).map((m) => m?.type).join(",");
  return { violations: checkTrace(o.contract, script, trace), describe: `${describe}\n→ ${types} | close ${trace.close?.code ?? "none"}` };
}

/** A healthy session streamed slowly while the fuzzed ones run; it must complete normally. */
async function canary(o: WsRunOptions, stopAt: () => boolean): Promise<Violation[]> {
  const out: Violation[] = [];
  let n = 0;
  while (!stopAt() && n < 1000) {
    n++;
    const script: WsScript = {
      sampleRate: 16000,
      channels: 1,
      flags: { receive_lifecycle_events: true, receive_acknowledgments: true, receive_errors: true },
      steps: Array.from({ length: 8 }, (_, i) => ({ audio: { kind: i % 2 ? "tone" : "silence", ms: 100, form: "binary" } as Audio })),
      after: "nothing",
    };
    const created = await createSession(o.target, { ...o.init, messages_config: script.flags });
    if (!("id" in created)) continue;
    const trace = await streamScript(wsUrlOnTarget(o.target, created.url), script, 30000, 25);
    const problems = checkTrace(o.contract, script, trace);
    if (trace.close?.code !== 1000) problems.push({ check: "ws_isolation", message: `healthy concurrent session closed with ${trace.close?.code ?? "nothing"}` });
    if (trace.messages.some((m) => (m as Msg).type === "error")) problems.push({ check: "ws_isolation", message: "healthy concurrent session received an error message" });
    out.push(...problems.map((p) => ({ ...p, check: "ws_isolation" as const, message: `canary #${n}: ${p.message}` })));
  }
  return out;
}

/** Runs the WebSocket families: valid sequences, malformed sequences with a healthy canary alongside. */
export async function runWebSocket(o: WsRunOptions): Promise<void> {
  const shards = Math.max(1, o.concurrency);
  const validRuns = Math.max(1, Math.round(o.runs * 0.4));
  const malformedRuns = Math.max(1, o.runs - validRuns);
  const family = async (name: string, malformed: boolean, total: number) => {
    const per = Math.max(1, Math.ceil(total / shards));
    await Promise.all(
      Array.from({ length: shards }, (_, k) =>
        runProperty(o.report, "ws", `${name} #${k + 1}`, scriptArbitrary(o.contract, malformed), per, o.seed, (s) => runScript(o, s), o.issues),
      ),
    );
  };
  await family("ws valid sequences", false, validRuns);
  let finished = false;
  const canaryStarted = performance.now();
  const canaryRun = canary(o, () => finished);
  await family("ws malformed sequences", true, malformedRuns);
  finished = true;
  const canaryViolations = await canaryRun;
  o.report.areas.ws.cases++;
  const ok = canaryViolations.length === 0;
  o.report.properties.push({ area: "ws", name: "ws healthy concurrent session", cases: 1, ok, durationMs: Math.round(performance.now() - canaryStarted) });
  if (!ok) {
    o.report.areas.ws.failures++;
    o.report.failures.push({ area: "ws", property: "ws healthy concurrent session", seed: o.seed, counterexample: "a healthy 16 kHz mono session (silence and tone, binary frames) streamed alongside the malformed sequences", violations: canaryViolations.slice(0, 10) });
  }
}
