import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSessionRecording } from "./recording-spool.ts";

const FORMAT = { encoding: "wav/pcm", bitDepth: 16, sampleRate: 16000, channels: 1 } as const;

function stream(n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) & 255);
}

describe("session recording spool", () => {
  test("flush(upTo) writes only when the spool file lacks the stream before upTo; a resume fills the rest from the tail", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "rec-")), "s.flac");
    const bytes = stream(16_000);
    const rec = createSessionRecording(FORMAT, file);
    rec.write(bytes.subarray(0, 6400), 0);
    rec.flush(0); // nothing needed before offset 0
    expect(statSync(`${file}.spool`).size).toBe(0);
    rec.flush(3200); // the file must hold [0, 3200): everything gathered is written
    expect(statSync(`${file}.spool`).size).toBe(6400);
    rec.write(bytes.subarray(6400, 12_800), 6400);
    rec.flush(6400); // already held: no write
    expect(statSync(`${file}.spool`).size).toBe(6400);
    rec.flush(6401);
    expect(statSync(`${file}.spool`).size).toBe(12_800);
    rec.write(bytes.subarray(12_800), 12_800);
    rec.flush(9000);
    expect(statSync(`${file}.spool`).size).toBe(12_800); // [12 800, 16 000) only in memory

    // The process dies here (nothing flushed). A checkpoint stored with tailStart 9000 holds the
    // bytes from 9000 on; the resumed recording takes what the spool lacks from that tail.
    const resumed = createSessionRecording(FORMAT, file, { resume: { received: 16_000, tailStart: 9000, tail: bytes.slice(9000) } });
    expect(resumed.failure).toBeNull();
    resumed.flush();
    expect(Buffer.compare(readFileSync(`${file}.spool`), bytes)).toBe(0);
    await resumed.abort();
    await rec.abort();
  });

  test("a resume whose tail starts after the spool's end is a gap, reported as the recording's failure", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "rec-")), "s.flac");
    const bytes = stream(8000);
    const rec = createSessionRecording(FORMAT, file);
    rec.write(bytes, 0);
    rec.flush(1000);
    await rec.suspend();
    const resumed = createSessionRecording(FORMAT, file, { resume: { received: 12_000, tailStart: 9000, tail: stream(12_000).slice(9000) } });
    expect(resumed.failure?.message).toContain("recording gap: bytes 8000..9000");
    await resumed.abort();
  });
});
