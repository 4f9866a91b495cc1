/** POST /v2/live: validate, check region/credits/capabilities/capacity/concurrency, store, answer the WebSocket URL. */
import { randomUUID } from "node:crypto";
import { canServe } from "../../../workers/contract/can-serve.ts";
import { NoCapacityError } from "../../../workers/contract/types.ts";
import { clusterRegions } from "../../config.ts";
import { callbackUrlProblem } from "../../delivery/callback-url.ts";
import { applyDefaults } from "../../options/defaults.ts";
import { IGNORED_OPTIONS_HEADER, ignoredIn, withoutIgnored } from "../../options/ignored.ts";
import { requestedFeatures } from "../../options/features.ts";
import { missingAddon, narrowCapabilities } from "../../options/offered.ts";
import { URL_TTL_MS } from "../../session-records/limits.ts";
import { newSessionToken, sessionUrl } from "../../session-records/tokens.ts";
import type { Seat } from "../../capacity/admission.ts";
import type { SessionRecord } from "../../store/types.ts";
import { ApiError, badRequest } from "../errors.ts";
import type { Handler } from "../handler.ts";
import { semanticErrors } from "../../options/rules.ts";
import { defaultModel, installHint } from "../../serving.ts";

const NO_ENDPOINT = "no inference endpoint available";
/** How long a client refused for capacity is told to wait before it retries (seconds). */
const RETRY_AFTER = { "retry-after": "5" };

/** The answer to a session admission refused (`Admission.reserve`). */
function capacityRefusal(model: string, seat: Extract<Seat, { ok: false }>): ApiError {
  const figures = `a stream costs ${seat.cost.toFixed(2)} engine-seconds per second; admitted sessions ${seat.load.toFixed(2)}; limit ${seat.limit.toFixed(2)}`;
  if (seat.refusal === "no_room") return new ApiError(500, `${NO_ENDPOINT}: no engine has room for one stream of model ${model} (${figures})`, "no_inference_endpoint");
  return new ApiError(503, `inference is at capacity, retry later (${figures})`, "no_capacity", null, RETRY_AFTER);
}

export const createLiveSession: Handler<"createLiveSession"> = async ({ info, principal, deps, query, body, reply }) => {
  const parsed = query();
  const init = await body();
  const problems = [...parsed.errors, ...semanticErrors(init)];
  const callbackUrl = init.callback ? init.callback_config?.url : undefined;
  if (callbackUrl) {
    const problem = await callbackUrlProblem(callbackUrl, { allowLoopback: deps.config.callbacksAllowLoopback, allowPrivate: deps.config.callbacksAllowPrivate });
    if (problem) problems.push(problem);
  }
  if (problems.length) throw badRequest(problems);

  const region = parsed.values.region;
  if (region !== undefined && !clusterRegions[deps.config.cluster].includes(region)) {
    throw new ApiError(500, `${NO_ENDPOINT}: region ${region} is not served by cluster ${deps.config.cluster}`, "no_inference_endpoint");
  }

  const { account } = principal;
  if (account.plan.creditsSeconds !== null && account.plan.creditsSeconds <= 0) {
    throw new ApiError(402, "the account has no credits left", "insufficient_credits");
  }

  const features = requestedFeatures(init);
  const missing = features.flatMap((f) => {
    const why = missingAddon(f, deps.config.modelsDir);
    return why ? [`${f}: ${why}`] : [];
  });
  if (missing.length) throw new ApiError(500, `${NO_ENDPOINT}: ${missing.join("; ")}`, "no_inference_endpoint");

  let caps;
  try {
    caps = narrowCapabilities(await deps.coordinator.capabilities(), deps.config.modelsDir);
  } catch (e) {
    if (e instanceof NoCapacityError) throw new ApiError(503, "inference is busy, retry later", "no_capacity", null, RETRY_AFTER);
    throw e;
  }
  // Options accepted and ignored run as switched off: the applied options say what runs.
  const applied = withoutIgnored(applyDefaults(init.model == null ? { ...init, model: defaultModel(caps) } : init));
  const verdict = canServe(caps, {
    model: applied.model,
    languages: applied.language_config.languages,
    features,
    profile: applied.profile,
  });
  if (!verdict.ok) {
    const served = caps.some((c) => c.model === applied.model);
    const reason = served ? verdict.reason : `${verdict.reason}: ${installHint(applied.model)}`;
    const message = reason.startsWith(NO_ENDPOINT) ? reason : `${NO_ENDPOINT}: ${reason}`;
    throw new ApiError(500, message, "no_inference_endpoint");
  }

  // Capacity: refused when the sessions already admitted, this one included, would need more engine
  // time than the engines give (server/capacity/); the place is held until the record is stored.
  const seat = (await deps.admission?.reserve(verdict.capability)) ?? null;
  if (seat && !seat.ok) throw capacityRefusal(applied.model, seat);

  const now = deps.clock.now();
  const { token, hash } = newSessionToken();
  const record: SessionRecord = {
    id: randomUUID(),
    seq: 0,
    accountId: account.id,
    requestId: info.requestId,
    status: "queued",
    createdAt: now,
    updatedAt: now,
    connectedAt: null,
    endedAt: null,
    tokenHash: hash,
    model: applied.model,
    region: region ?? null,
    requestedOptions: init,
    appliedOptions: applied,
    customMetadata: init.custom_metadata ?? null,
    result: null,
    error: null,
    recordAudio: account.plan.recordAudio,
    recordingPath: null,
    audioDurationS: null,
    resumeState: null,
  };
  let outcome;
  try {
    outcome = await deps.store.createSession(record, account.plan.maxConcurrentSessions, now, URL_TTL_MS);
  } finally {
    if (outcome?.ok) seat?.confirm(record.id);
    else seat?.cancel();
  }
  if (!outcome.ok) {
    throw new ApiError(429, `the account already has its maximum of ${account.plan.maxConcurrentSessions} open sessions`, "concurrency_limit");
  }
  deps.log.info("session created", { request_id: info.requestId, session_id: record.id, account_id: account.id, model: record.model });
  const ignored = ignoredIn(init);
  const headers = ignored.length ? { [IGNORED_OPTIONS_HEADER]: ignored.join(",") } : undefined;
  return reply(201, { id: record.id, created_at: new Date(now).toISOString(), url: sessionUrl(deps.config.publicUrl, token) }, headers);
};
