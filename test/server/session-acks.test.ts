/**
 * The ack point and the replay point of a session's acknowledgments: an ack may run ahead of the
 * replay point (an utterance transcribed by its speculative final, not final yet); the retained
 * tail and the snapshot stay at the replay point, and the finals a client is taken to have received
 * are those sent before the ack it confirmed, not those ending before that ack's end.
 */
import { afterAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { SileroVad } from "../../workers/engines/vad/silero.ts";
import type { AudioFormat } from "../../server/audio/format.ts";
import { createAudioFrontend } from "../../server/audio/frontend.ts";
import { SessionAcks } from "../../server/session/acks.ts";
import type { PersistedSession } from "../../server/session/persist.ts";
import { sharedModels } from "../helpers/models.ts";

const vad = await SileroVad.load(path.join(process.env.MODELS_DIR ?? sharedModels, "silero-vad/silero_vad.onnx"));
afterAll(() => vad.close());

const format: AudioFormat = { encoding: "wav/pcm", bitDepth: 16, sampleRate: 16000, channels: 1 };
const BYTES_PER_S = 32000;

/** Deterministic low-level noise, so every ack boundary is distinguishable (no all-zero runs). */
function noise(seconds: number, seed: number): Uint8Array {
  const out = new Int16Array(seconds * 16000);
  let x = seed | 1;
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = (x % 16) - 8;
  }
  return new Uint8Array(out.buffer);
}

async function session(restored?: PersistedSession) {
  const frontend = await createAudioFrontend({ format, vad, endpointer: {} });
  const { acks } = SessionAcks.create(format, frontend, () => {}, restored);
  /** Receives `seconds` of audio the way a session does: dedup, retain, front end. */
  const receive = async (seconds: number, seed: number) => {
    const fresh = acks.accept(noise(seconds, seed));
    acks.retain(fresh);
    await frontend.push(fresh);
    acks.frontendRead();
  };
  return { acks, receive, close: () => frontend.close() };
}

describe("SessionAcks: ack point ahead of the replay point", () => {
  test("acks follow the ack point, the tail the replay point, and finals are confirmed by send order", async () => {
    const s = await session();
    await s.receive(11, 1);
    // Transcribed up to 10 s (a speculative final), but an utterance is open from 4 s.
    const first = s.acks.next(10, 4)!;
    expect(first.byteRange).toEqual([0, 10 * BYTES_PER_S]);
    expect(first.confirmedUntil).toBe(0);
    // What the client may drop is still kept from the replay point less the warm-up (2 s).
    const position = s.acks.position(4);
    expect(position.tailStart).toBeLessThanOrEqual(2 * BYTES_PER_S);
    expect(s.acks.bytesFrom(position.tailStart).length).toBe(11 * BYTES_PER_S - position.tailStart);

    // 31 s later on a live connection the 10 s ack is taken as delivered: finals ending by 4 s were
    // sent before it, those between 4 s and 10 s (the open utterance's) maybe not.
    await s.receive(31, 2);
    const second = s.acks.next(40, 38)!;
    expect(second.byteRange).toEqual([10 * BYTES_PER_S, 40 * BYTES_PER_S]);
    expect(second.confirmedUntil).toBe(4);
    const later = s.acks.position(38);
    expect(later.candidates).toEqual([10 * BYTES_PER_S, 40 * BYTES_PER_S]);
    expect(later.candidateFinalsUntil).toEqual([4, 38]);
    expect(later.tailStart).toBeLessThanOrEqual(36 * BYTES_PER_S);

    // A restarted process keeps what each candidate confirms.
    const snapshot = s.acks.snapshot(38);
    s.close();
    const restored = await session({ ...snapshot, version: 1, suppressBefore: 38, utterances: [], indexBase: [0], lastFinalEnd: [0], transcriptionTimeS: 0 });
    const again = restored.acks.position(38);
    const at = (offset: number) => again.candidateFinalsUntil[again.candidates.indexOf(offset)];
    expect(at(10 * BYTES_PER_S)).toBe(4);
    expect(at(40 * BYTES_PER_S)).toBe(38);
    restored.close();
  });

  test("without the frontiers (a state stored before acks could run ahead), a candidate confirms the finals ending before it", async () => {
    const s = await session();
    await s.receive(11, 3);
    s.acks.next(10, 4);
    const { candidateFinalsUntil: _f, ...old } = s.acks.snapshot(4);
    s.close();
    const restored = await session({ ...old, version: 1, suppressBefore: 4, utterances: [], indexBase: [0], lastFinalEnd: [0], transcriptionTimeS: 0 });
    const again = restored.acks.position(4);
    expect(again.candidateFinalsUntil[again.candidates.indexOf(10 * BYTES_PER_S)]).toBe(10);
    restored.close();
  });
});
