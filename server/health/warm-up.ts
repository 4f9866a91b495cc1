/**
 * The warm-up decodes run on every engine at start (before readiness): a partial and a final of
 * faint noise with the default latency profile's settings, as a session's first utterance asks.
 * Faint noise keeps them short (the decoder stops at once) while every graph runs once.
 */
import type { TranscribeRequest } from "../../workers/contract/types.ts";
import { liveDefaults } from "../options/defaults.ts";
import { streamingProfile } from "../session/profiles.ts";

const RATE = 16_000;

export function warmUpRequests(): TranscribeRequest[] {
  const profile = streamingProfile(liveDefaults.profile);
  // Faint noise, above the engine's silence floor (digital silence is answered without a decode).
  const audio = new Float32Array(RATE * 2);
  let seed = 1;
  for (let i = 0; i < audio.length; i++) audio[i] = ((seed = (seed * 48271) % 2147483647) / 2147483647 - 0.5) * 0.006;
  const common = { streamKey: "warm-up", languages: ["en"], ...(profile.lowLatencyDecodes ? { lowLatency: true } : {}) };
  return [
    { ...common, audio: audio.subarray(0, RATE), partial: true, shortPartialWindows: profile.shortPartialWindows },
    { ...common, audio, partial: false, beamSize: profile.finalBeamSize },
  ];
}
