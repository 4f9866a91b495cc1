/**
 * Intake of new session bytes (after resume dedup): the plan's maximum session duration applied
 * (a WAV header at the stream start is sniffed so it does not count as audio), the bytes retained
 * for a restart and appended to the recording.
 */
import { bytesPerFrame, type AudioFormat } from "../audio/format.ts";
import type { SessionAcks } from "./acks.ts";
import type { SessionRecording } from "./recording-spool.ts";

/** Length of the canonical WAV header a client may send first. */
const WAV_HEADER_BYTES = 44;

export class Intake {
  constructor(
    private readonly acks: SessionAcks,
    private readonly recording: SessionRecording | null,
    private readonly format: AudioFormat,
    /** The account plan's maximum session duration. */
    private readonly maxDurationS: number,
  ) {}

  /** Takes new bytes at stream `offset`; `cut` when the maximum duration was reached (audio past it is dropped). */
  take(fresh: Uint8Array): { bytes: Uint8Array; cut: boolean; offset: number } {
    const received = this.acks.received;
    const limit = this.limitBytes(fresh);
    const cut = limit - received < fresh.length;
    const bytes = cut ? fresh.subarray(0, Math.max(0, limit - received)) : fresh;
    const offset = this.acks.retain(bytes);
    this.recording?.write(bytes, offset);
    return { bytes, cut, offset };
  }

  /** Stream offset at which the plan's maximum session duration is reached. */
  private limitBytes(next: Uint8Array): number {
    if (this.acks.received === 0 && isRiff(next)) this.acks.headerBytes = WAV_HEADER_BYTES;
    return this.acks.headerBytes + Math.floor(this.maxDurationS * this.format.sampleRate) * bytesPerFrame(this.format);
  }
}

/** The bytes start with `RIFF`. */
function isRiff(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46;
}
