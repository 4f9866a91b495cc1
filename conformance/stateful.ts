/**
 * The stateful sequence: create → read → connect → stream → stop → read → list → recording →
 * delete → read/list/recording again (404, gone from the list), with callbacks posted to a local
 * receiver when the target is on loopback. Every exchange is also checked like any HTTP case.
 */
import { startCallbackReceiver } from "./callbacks.ts";
import type { Contract, OperationSpec } from "./contract.ts";
import { checkExchange, describeCase, execute, type HttpCase, type HttpState, type Target } from "./http.ts";
import type { KnownIssue } from "./known-issues.ts";
import { runProperty } from "./property.ts";
import type { Report, Violation } from "./report.ts";
import { checkTrace, streamScript, wsUrlOnTarget, type WsScript } from "./ws.ts";
import fc from "fast-check";

export interface StatefulOptions {
  contract: Contract;
  target: Target;
  report: Report;
  init: Record<string, unknown>;
  state: HttpState;
  seed: number;
  issues?: KnownIssue[];
  /** Fail (instead of skipping with a notice) when no callback reaches the loopback receiver. */
  requireCallbacks?: boolean;
}

/** Why callbacks were not checked although the target is on loopback. */
export const LOOPBACK_REFUSED =
  "no callback reached the receiver on 127.0.0.1: the deployment refuses loopback callback targets unless it is started with CALLBACKS_ALLOW_LOOPBACK=true";
/** The same when the deployment refused the receiver's URL at session creation. */
export const LOOPBACK_REFUSED_AT_POST =
  "no callback reached the receiver on 127.0.0.1: POST /v2/live refused its URL (400 naming callback_config.url); the deployment refuses loopback callback targets unless it is started with CALLBACKS_ALLOW_LOOPBACK=true";

const isLoopback = (url: string) => ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname);

/** Runs the lifecycle once (as a one-case property, so failures are reported like the others). */
export async function runStateful(o: StatefulOptions): Promise<void> {
  const byId = (id: string): OperationSpec => {
    const op = o.contract.operations.find((x) => x.operationId === id);
    if (!op) throw new Error(`the contract has no operation ${id}`);
    return op;
  };
  const useCallbacks = isLoopback(o.target.baseUrl);
  if (!useCallbacks) {
    o.report.skipped.push({ area: "callback", name: "callbacks", reason: "the target is not on loopback, so it cannot reach the suite's callback receiver (127.0.0.1)" });
  }
  await runProperty(o.report, "stateful", "session lifecycle", fc.constant(null), 1, o.seed, async () => {
    const violations: Violation[] = [];
    const log: string[] = [];
    const call = async (op: OperationSpec, c: Partial<HttpCase>, want?: number[], check?: string) => {
      const full: HttpCase = { operationId: op.operationId, pathParams: {}, query: [], headers: {}, auth: "valid", expect: { kind: "positive" }, ...c };
      const obs = await execute(o.target, op, full);
      log.push(`${describeCase(op, full).split("\n")[1]} → ${obs.status}`);
      violations.push(...checkExchange(o.contract, op, full, obs).violations);
      if (want && !want.includes(obs.status)) violations.push({ check: (check as Violation["check"]) ?? "status_code_conformance", message: `${op.method} ${op.path}: ${obs.status}, expected ${want.join(" or ")}` });
      return obs;
    };
    const receiver = useCallbacks ? startCallbackReceiver(o.contract) : null;
    try {
      const flags = { receive_partial_transcripts: true, receive_final_transcripts: true, receive_speech_events: true, receive_pre_processing_events: true, receive_realtime_processing_events: true, receive_post_processing_events: true, receive_acknowledgments: true, receive_errors: true, receive_lifecycle_events: true };
      const create = (withCallbacks: boolean) => {
        const body = { ...o.init, messages_config: flags, custom_metadata: { conformance: "lifecycle" }, ...(withCallbacks ? { callback: true, callback_config: { url: receiver!.url, ...flags } } : {}) };
        // A deployment may refuse loopback callback URLs with a 400 naming callback_config.url.
        return call(byId("createLiveSession"), { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, withCallbacks ? [201, 400] : [201], "ensure_resource_availability");
      };
      let created = await create(receiver !== null);
      let refusedAtPost = false;
      if (receiver && created.status === 400) {
        if (!created.text.includes("callback_config.url")) {
          violations.push({ check: "ensure_resource_availability", message: `POST /v2/live with a loopback callback URL: 400 not naming callback_config.url: ${created.text.slice(0, 300)}` });
          return { violations, describe: log.join("\n") };
        }
        refusedAtPost = true;
        created = await create(false);
      }
      if (created.status !== 201) return { violations, describe: log.join("\n") };
      const { id, url } = JSON.parse(created.text) as { id: string; url: string };
      o.state.knownIds.push(id);
      await call(byId("getLiveSession"), { pathParams: { id } }, [200], "ensure_resource_availability");

      const script: WsScript = { sampleRate: 16000, channels: 1, flags, steps: [{ audio: { kind: "silence", ms: 300, form: "binary" } }, { audio: { kind: "tone", ms: 400, form: "json" } }, { audio: { kind: "silence", ms: 300, form: "binary" } }], after: "nothing" };
      const trace = await streamScript(wsUrlOnTarget(o.target, url), script);
      log.push(`WebSocket: ${(trace.messages as { type?: string }[]).map((m) => m.type).join(",")} | close ${trace.close?.code}`);
      violations.push(...checkTrace(o.contract, script, trace));
      if (trace.close) o.report.closeCodes[trace.close.code] = (o.report.closeCodes[trace.close.code] ?? 0) + 1;

      const after = await call(byId("getLiveSession"), { pathParams: { id } }, [200]);
      if (after.status === 200 && !["done", "error"].includes((JSON.parse(after.text) as { status: string }).status)) {
        violations.push({ check: "ensure_resource_availability", message: `session status ${(JSON.parse(after.text) as { status: string }).status} after end_session` });
      }
      const list = await call(byId("listLiveSessions"), { query: [["limit", "100"]] }, [200]);
      if (list.status === 200 && !(JSON.parse(list.text) as { items: { id: string }[] }).items.some((s) => s.id === id)) violations.push({ check: "ensure_resource_availability", message: "created session missing from the list" });
      await call(byId("getLiveSessionRecording"), { pathParams: { id } });
      await call(byId("getLiveSessionRecording"), { pathParams: { id }, headers: { range: "bytes=0-9" } });

      const anyArrived = async () => {
        for (let deadline = Date.now() + 5000; Date.now() < deadline; await Bun.sleep(50)) if (receiver!.envelopes.some((e) => e.id === id)) return true;
        return false;
      };
      if (receiver && (refusedAtPost || !(await anyArrived()))) {
        const why = refusedAtPost ? LOOPBACK_REFUSED_AT_POST : LOOPBACK_REFUSED;
        if (o.requireCallbacks) violations.push({ check: "callback_delivery", message: why });
        else o.report.skipped.push({ area: "callback", name: "callbacks", reason: `${why} (or run with --require-callbacks to fail instead)` });
      } else if (receiver) {
        const last = `live.end_session`;
        if (!(await receiver.waitFor(id, last, 10000))) violations.push({ check: "callback_delivery", message: `no ${last} callback within 10 s; got ${receiver.envelopes.map((e) => e.event).join(",")}` });
        const events = receiver.envelopes.filter((e) => e.id === id).map((e) => e.event);
        if (!events.includes("live.start_session")) violations.push({ check: "callback_delivery", message: `no live.start_session callback; got ${events.join(",")}` });
        if (events.at(-1) !== last) violations.push({ check: "callback_delivery", message: `callbacks after ${last}: ${events.join(",")}` });
        violations.push(...receiver.violations);
        o.report.areas.callback.cases += receiver.envelopes.length;
        if (receiver.violations.length) o.report.areas.callback.failures++;
        log.push(`callbacks: ${events.join(",")}`);
      }

      await call(byId("deleteLiveSession"), { pathParams: { id } }, [202]);
      await call(byId("getLiveSession"), { pathParams: { id } }, [404], "use_after_free");
      await call(byId("getLiveSessionRecording"), { pathParams: { id } }, [404], "use_after_free");
      await call(byId("deleteLiveSession"), { pathParams: { id } }, [404], "use_after_free");
      const list2 = await call(byId("listLiveSessions"), { query: [["limit", "100"]] }, [200]);
      if (list2.status === 200 && (JSON.parse(list2.text) as { items: { id: string }[] }).items.some((s) => s.id === id)) violations.push({ check: "use_after_free", message: "deleted session still listed" });
      return { violations, describe: log.join("\n") };
    } finally {
      receiver?.stop();
    }
  }, o.issues);
}
