/** A local callback receiver (Bun.serve on 127.0.0.1) that checks every posted envelope against the contract. */
import type { Contract } from "./contract.ts";
import type { Violation } from "./report.ts";

export interface CallbackReceiver {
  url: string;
  /** Envelopes received, in arrival order. */
  envelopes: { event?: string; id?: string; payload?: unknown }[];
  violations: Violation[];
  /** Resolves once an envelope with `event` for session `id` arrived, or after `timeoutMs`. */
  waitFor(id: string, event: string, timeoutMs: number): Promise<boolean>;
  stop(): void;
}

/** Starts a receiver; every POST is answered 200 and checked. */
export function startCallbackReceiver(contract: Contract, hostname = "127.0.0.1"): CallbackReceiver {
  const envelopes: CallbackReceiver["envelopes"] = [];
  const violations: Violation[] = [];
  const server = Bun.serve({
    port: 0,
    hostname,
    async fetch(req) {
      const text = await req.text();
      const ct = req.headers.get("content-type") ?? "";
      if (req.method !== "POST") violations.push({ check: "callback_delivery", message: `callback delivered with ${req.method}` });
      if (!ct.startsWith("application/json")) violations.push({ check: "callback_envelope_schema", message: `callback content-type ${ct || "(none)"}` });
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        violations.push({ check: "callback_envelope_schema", message: `callback body is not JSON: ${text.slice(0, 120)}` });
        return new Response("ok");
      }
      const r = contract.validateCallback(body);
      const e = body as { event?: string };
      if (!r.ok) violations.push({ check: "callback_envelope_schema", message: `${String(e?.event)}: ${r.errors.join("; ")}` });
      envelopes.push(body as CallbackReceiver["envelopes"][number]);
      return new Response("ok");
    },
  });
  return {
    url: `http://${hostname}:${server.port}/hook`,
    envelopes,
    violations,
    async waitFor(id, event, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (envelopes.some((x) => x.id === id && x.event === event)) return true;
        await Bun.sleep(50);
      }
      return false;
    },
    stop: () => server.stop(true),
  };
}
