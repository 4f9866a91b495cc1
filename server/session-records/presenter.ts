/** A stored session as the API shows it (`LiveSession`). */
import type { LiveSession } from "../../generated/openapi/types.gen.ts";
import { liveDefaults } from "../options/defaults.ts";
import type { SessionRecord } from "../store/types.ts";

const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString());

export function presentSession(s: SessionRecord): LiveSession {
  const ended = s.status === "done" || s.status === "error";
  return {
    id: s.id,
    request_id: s.requestId,
    version: 2,
    status: s.status,
    created_at: new Date(s.createdAt).toISOString(),
    completed_at: ended ? iso(s.endedAt ?? s.updatedAt) : null,
    custom_metadata: s.customMetadata,
    error_code: s.status === "error" ? errorCode(s) : null,
    kind: "live",
    file:
      s.recordAudio && s.recordingPath
        ? {
            id: s.id,
            filename: `${s.id}.flac`,
            source: null,
            audio_duration: s.audioDurationS,
            number_of_channels: s.appliedOptions.channels ?? liveDefaults.channels,
          }
        : null,
    request_params: s.requestedOptions,
    result: s.result ?? null,
  };
}

function errorCode(s: SessionRecord): number {
  switch (s.error?.code) {
    case "url_expired":
      return 408;
    case "rejected":
      return 400;
    default:
      return 500;
  }
}
