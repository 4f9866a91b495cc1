/**
 * The per-session audio front end: session bytes in, per-channel speech events out.
 *
 *   bytes (session encoding, rate, interleaved channels)
 *     → decoder → per channel: resampler to 16 kHz → endpointer (Silero VAD)
 *     → events tagged with their channel
 *
 * It also counts what it received, so acknowledgment ranges and `recording_duration` can be
 * computed by the session.
 */

import type { VadModel, VadStream } from "../../workers/contract/vad.ts";
import { createEndpointer } from "../vad/endpointer.ts";
import type { Endpointer, EndpointerEvent, EndpointerOptions } from "../vad/endpointer-types.ts";
import { createAudioDecoder, type AudioDecoder, type DecoderWarning } from "./decoder.ts";
import type { AudioFormat } from "./format.ts";
import { createResampler, type Resampler, type ResamplerQuality } from "./resampler.ts";

/** Rate of the audio inside events (the VAD's and the engines' rate). */
export const FRONTEND_SAMPLE_RATE = 16000;

/** An endpointer event of one channel (0-based). */
export type ChannelEvent = EndpointerEvent & { channel: number };

/** A problem with the stream that did not stop decoding (e.g. a WAV header that disagrees). */
export interface FrontendWarning extends DecoderWarning {
  type: "warning";
}

export type FrontendEvent = ChannelEvent | FrontendWarning;

export interface AudioFrontendOptions {
  format: AudioFormat;
  /** Loaded VAD model; each channel gets its own stream. */
  vad: VadModel;
  endpointer?: EndpointerOptions;
  resamplerQuality?: ResamplerQuality;
  /** Sees each channel's 16 kHz audio before the VAD does; `time` (s) is that of its first sample. */
  onAudio?: (channel: number, samples: Float32Array, time: number) => void;
}

export interface AudioFrontend {
  readonly format: AudioFormat;
  /**
   * Consumes the next chunk of the session stream. Events come back in the order the audio
   * produced them; the promises of successive calls resolve in call order.
   */
  push(bytes: Uint8Array): Promise<FrontendEvent[]>;
  /** End of recording: drains the resamplers and ends open utterances (reason `flush`). */
  flush(): Promise<FrontendEvent[]>;
  /** Channel `channel`'s endpointer cuts its open utterance at `time` (seconds of the channel): `Endpointer.cut`. */
  cut(channel: number, utteranceIndex: number, time: number): void;
  /** Every byte received, WAV header included (offset of the next byte from the session start). */
  readonly bytesReceived: number;
  /** Seconds of audio received (whole frames decoded at the session rate). */
  readonly durationSeconds: number;
  /** Stream byte offset where the audio at `seconds` begins (WAV header included), for ack ranges. */
  byteOffsetAt(seconds: number): number;
  /** Frees the resamplers. */
  close(): void;
}

interface Channel {
  resampler: Resampler;
  vad: VadStream;
  endpointer: Endpointer;
  /** 16 kHz samples handed to the endpointer so far. */
  samples: number;
}

/** Time an event refers to, used to interleave the channels' events. */
const eventTime = (e: EndpointerEvent): number => ("time" in e ? e.time : e.end);

/** Merges per-channel event lists by time, keeping each channel's own order. */
function mergeChannels(lists: EndpointerEvent[][]): ChannelEvent[] {
  const out: ChannelEvent[] = [];
  const next = lists.map(() => 0);
  for (;;) {
    let best = -1;
    for (let c = 0; c < lists.length; c++) {
      const e = lists[c]![next[c]!];
      if (e && (best < 0 || eventTime(e) < eventTime(lists[best]![next[best]!]!))) best = c;
    }
    if (best < 0) return out;
    out.push({ ...lists[best]![next[best]!++]!, channel: best });
  }
}

/** Builds the front end of one session stream. Throws on an unsupported format. */
export async function createAudioFrontend(options: AudioFrontendOptions): Promise<AudioFrontend> {
  // One decode pass into buffers reused from frame to frame: the resampler reads them at once, and
  // the endpointer and `onAudio` copy what they keep.
  const decoder: AudioDecoder = createAudioDecoder(options.format, { reuseOutput: true });
  const channels: Channel[] = [];
  for (let c = 0; c < options.format.channels; c++) {
    const vad = options.vad.createStream(FRONTEND_SAMPLE_RATE);
    channels.push({
      resampler: await createResampler(options.format.sampleRate, FRONTEND_SAMPLE_RATE, options.resamplerQuality),
      vad,
      endpointer: createEndpointer(vad, options.endpointer),
      samples: 0,
    });
  }

  /** Resampled audio of channel `c`, shown to `onAudio` on its way to the endpointer. */
  const tap = (c: number, samples: Float32Array): Float32Array => {
    const ch = channels[c]!;
    if (options.onAudio && samples.length > 0) options.onAudio(c, samples, ch.samples / FRONTEND_SAMPLE_RATE);
    ch.samples += samples.length;
    return samples;
  };

  const warnings = (): FrontendWarning[] => decoder.takeWarnings().map((w) => ({ type: "warning", ...w }));

  async function collect(perChannel: Promise<EndpointerEvent[]>[], before: FrontendWarning[]) {
    const lists = await Promise.all(perChannel);
    return [...before, ...mergeChannels(lists)];
  }

  return {
    format: options.format,
    push(bytes) {
      const decoded = decoder.push(bytes);
      const found = warnings();
      return collect(
        channels.map((ch, c) => ch.endpointer.push(tap(c, ch.resampler.push(decoded[c]!)))),
        found,
      );
    },
    flush() {
      const decoded = decoder.flush();
      const found = warnings();
      return collect(
        channels.map(async (ch, c) => {
          const head = tap(c, ch.resampler.push(decoded[c]!));
          const tail = tap(c, ch.resampler.flush());
          const events = await ch.endpointer.push(head);
          events.push(...(await ch.endpointer.push(tail)));
          events.push(...(await ch.endpointer.flush()));
          return events;
        }),
        found,
      );
    },
    cut: (channel, utteranceIndex, time) => channels[channel]?.endpointer.cut(utteranceIndex, time),
    get bytesReceived() {
      return decoder.bytesReceived;
    },
    get durationSeconds() {
      return decoder.framesDecoded / options.format.sampleRate;
    },
    byteOffsetAt: (seconds) => decoder.byteOffsetAt(seconds),
    close() {
      for (const ch of channels) {
        ch.resampler.close();
        ch.vad.close();
      }
    },
  };
}
