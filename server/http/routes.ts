/** Binds every contract operation (generated/operations.ts) to its handler and the scope it needs. */
import type { OperationId } from "../../generated/operations.ts";
import type { Scope } from "../store/types.ts";
import type { Handler } from "./handler.ts";
import { createLiveSession } from "./handlers/create-session.ts";
import { getHealth, getLiveness, getReadiness } from "./handlers/health.ts";
import { getLiveCapabilities, getLiveDefaults, storeLlmCallback } from "./handlers/info.ts";
import { getLiveSessionRecording } from "./handlers/recording.ts";
import { deleteLiveSession, getLiveSession, listLiveSessions } from "./handlers/sessions.ts";

/** `scope: null`: a public operation (`security: []` in the contract), answered without an API key. */
export const routes: { [Op in OperationId]: { scope: Scope | null; handler: Handler<Op> } } = {
  createLiveSession: { scope: "sessions:write", handler: createLiveSession },
  listLiveSessions: { scope: "sessions:read", handler: listLiveSessions },
  getLiveSession: { scope: "sessions:read", handler: getLiveSession },
  deleteLiveSession: { scope: "sessions:delete", handler: deleteLiveSession },
  getLiveSessionRecording: { scope: "recordings:read", handler: getLiveSessionRecording },
  getLiveDefaults: { scope: "sessions:read", handler: getLiveDefaults },
  getLiveCapabilities: { scope: "sessions:read", handler: getLiveCapabilities },
  storeLlmCallback: { scope: "callbacks:write", handler: storeLlmCallback },
  getHealth: { scope: null, handler: getHealth },
  getLiveness: { scope: null, handler: getLiveness },
  getReadiness: { scope: null, handler: getReadiness },
};
