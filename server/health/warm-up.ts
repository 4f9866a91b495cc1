/**
 * The warm-up decodes run on every engine at start (before readiness): a partial and a final of
 * quiet audio with the default latency profile's settings, as a session's first utterance asks.
 * Quiet audio keeps them short (the decoder stops at once) while every graph runs once.
 */
import type { TranscribeRequest } from "../../workers/contract/types.ts";
import { liveDefaults } from "../options/defaults.ts";
import { streamingProfile } from "../session/streaming.ts";

const RATE = 16_000;

export function warmUpRequests(): TranscribeRequest[] {
  const profile = streamingProfile(liveDefaults.profile);
  const audio = new Float32Array(RATE * 2);
  const common = { streamKey: "warm-up", languages: ["en"], ...(profile.lowLatencyDecodes ? { lowLatency: true } : {}) };
  return [
    { ...common, audio: audio.subarray(0, RATE), partial: true, shortPartialWindows: profile.shortPartialWindows },
    { ...common, audio, partial: false, beamSize: profile.finalBeamSize },
  ];
}
