/**
 * Admission of WebSocket connections: which token may connect (refused over HTTP with 429 past the
 * account's open-session limit), and, when a new session connects, whether its model runs the
 * options it was created with (refused with 1011 `rejected: …`, stored as the session's error).
 */
import type { LiveSessionInit } from "../../generated/openapi/types.gen.ts";
import { canServe } from "../../workers/contract/can-serve.ts";
import type { ModelCapability } from "../../workers/contract/types.ts";
import type { AppDeps } from "../deps.ts";
import { errorBody, newRequestId } from "../http/errors.ts";
import type { AppliedOptions } from "../options/defaults.ts";
import type { SessionHost } from "../session/host.ts";
import { settleExpiry } from "../session-records/expiry.ts";
import { RESUME_WINDOW_MS, URL_TTL_MS } from "../session-records/limits.ts";
import { tokenHash } from "../session-records/tokens.ts";
import type { SessionRecord } from "../store/types.ts";

/** Returns why the model refuses the session's options, or null when it runs them. */
function refusedOption(applied: AppliedOptions, requested: LiveSessionInit, caps: ModelCapability[]): string | null {
  const rt = applied.realtime_processing;
  if (!rt?.translation) return null;
  if (requested.pii != null) return "translation cannot be combined with pii redaction";
  const targets = rt.translation_config?.target_languages ?? [];
  const verdict = canServe(caps, { model: applied.model, translationTargets: targets });
  if (!verdict.ok || targets.length === 0) {
    const served = caps.find((c) => c.model === applied.model)?.translationTargets ?? [];
    const unserved = targets.filter((t) => !served.includes(t));
    return `translation target${unserved.length === 1 ? "" : "s"} ${unserved.join(", ") || "(none)"} not served by ${applied.model}`;
  }
  return null;
}

export class Admission {
  constructor(
    private readonly deps: AppDeps,
    private readonly host: SessionHost,
  ) {}

  /** Decides whether a token may connect: its record, null (closed with 4401 once open), or a Response refusing the upgrade. */
  async resolve(token: string): Promise<SessionRecord | null | Response> {
    const { store, clock } = this.deps;
    if (!token) return null;
    const found = await store.getSessionByTokenHash(tokenHash(token));
    if (!found) return null;
    const now = clock.now();
    const record = await settleExpiry(store, found, now);
    if (record.status === "done" || record.status === "error") return null;
    const live = this.host.session(record.id);
    if (live) return live.currentPhase === "ended" ? null : record;
    if (record.connectedAt === null) {
      const account = await store.getAccount(record.accountId);
      if (!account) return null;
      const open = await store.countOpenSessions(record.accountId, now, URL_TTL_MS);
      if (open > account.plan.maxConcurrentSessions) {
        const body = errorBody(429, "/v2/live", newRequestId(), {
          message: "the account already has its maximum number of open sessions",
          reason: null,
          validationErrors: null,
        });
        return Response.json(body, { status: 429 });
      }
      return record;
    }
    // Connected before but not held here: another gateway may hold it (it will hand it over), a
    // gateway that stopped left a persisted state to resume from (inside the window), or the
    // gateway holding it died and its last checkpoint is resumed (the session host decides).
    if (!record.resumeState) return record;
    if (now - record.updatedAt > RESUME_WINDOW_MS) return null;
    return record;
  }

  /**
   * A session connecting for the first time whose model refuses its options is stored as rejected;
   * returns the close reason then, null when it may start.
   */
  async refusal(record: SessionRecord): Promise<string | null> {
    if (this.host.session(record.id) || record.connectedAt !== null) return null;
    const { store, clock, coordinator } = this.deps;
    const reason = refusedOption(record.appliedOptions, record.requestedOptions, await coordinator.capabilities());
    if (!reason) return null;
    const now = clock.now();
    await store.updateSession(record.id, { status: "error", error: { code: "rejected", message: reason }, connectedAt: now, endedAt: now, updatedAt: now });
    return `rejected: ${reason}`.slice(0, 120);
  }
}
