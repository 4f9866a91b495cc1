/** GET /health, /health/live (liveness: the process serves) and /health/ready (readiness, 503 until warm). */
import { json, type Handler } from "../handler.ts";

export const getLiveness: Handler<"getLiveness"> = async ({ reply }) => reply(200, { status: "ok" });

export const getHealth: Handler<"getHealth"> = async ({ reply }) => reply(200, { status: "ok" });

export const getReadiness: Handler<"getReadiness"> = async ({ deps, reply }) => {
  const view = deps.readiness?.view() ?? { status: "ready" as const, waiting_for: [], ready_after_s: 0, models: [] };
  // 503 is a documented error status (its body the same Readiness), outside the typed success replies.
  return view.status === "ready" ? reply(200, view) : json(view, 503);
};
