/**
 * End-of-turn detection of one audio channel as a session runs it: a Silero VAD stream of its own
 * (so that silence is known within a 32 ms chunk, not after the endpointer's hang-over, with the
 * endpointer's hysteresis: voice from 0.5, lasting while chunks score 0.35) in front of the
 * detector. Audio may come in pieces of any size; events come back in stream order.
 */
import type { VadModel } from "../../contract/vad.ts";
import { EndOfTurnDetector, type EndOfTurnSettings, type TurnEvent } from "./detector.ts";
import type { TurnModel } from "./smart-turn.ts";

const VOICE_START = 0.5;
const VOICE_END = 0.35;

export interface TurnChannel {
  /** 16 kHz mono audio starting at session time `time` (contiguous with the previous push). */
  push(samples: Float32Array, time: number): Promise<TurnEvent[]>;
  /** Frees the VAD stream (call once no push is pending). */
  close(): void;
}

export function createTurnChannel(model: TurnModel, vad: VadModel, channel: number, settings: EndOfTurnSettings): TurnChannel {
  const detector = new EndOfTurnDetector(channel, settings, (a) => model.predict(a), { vadGated: true });
  const stream = vad.createStream(16000);
  const size = stream.frameSamples;
  let speaking = false;
  let pending = new Float32Array(0);
  let pendingTime = 0;
  return {
    async push(samples, time) {
      if (pending.length === 0) pendingTime = time;
      const data = new Float32Array(pending.length + samples.length);
      data.set(pending);
      data.set(samples, pending.length);
      const whole = data.length - (data.length % size);
      const start = pendingTime;
      pending = data.slice(whole);
      pendingTime = start + whole / 16000;
      const events: TurnEvent[] = [];
      for (let i = 0; i < whole; i += size) {
        const chunk = data.subarray(i, i + size);
        speaking = (await stream.process(chunk)) >= (speaking ? VOICE_END : VOICE_START);
        detector.voice(speaking);
        events.push(...(await detector.push(chunk, start + i / 16000)));
      }
      return events;
    },
    close: () => stream.close(),
  };
}
