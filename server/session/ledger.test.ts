import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createAckLedger, type AckLedgerOptions } from "./ledger.ts";

type Action =
  | { k: "produce"; n: number }
  | { k: "recv"; n: number }
  | { k: "transcribe"; frac: number }
  | { k: "acks"; n: number }
  | { k: "drop" }
  | { k: "reconnect" }
  | { k: "ackThenDrop"; frac: number };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ k: fc.constant("produce" as const), n: fc.integer({ min: 1, max: 160 }) }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant("recv" as const), n: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("transcribe" as const), frac: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("acks" as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("drop" as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("reconnect" as const) }) },
  // An ack goes out and the connection drops before it arrives.
  { weight: 3, arbitrary: fc.record({ k: fc.constant("ackThenDrop" as const), frac: fc.double({ min: 0, max: 1, noNaN: true }) }) },
);

const LENGTH = 3000;

/** Audio byte streams, including the adversarial kinds (silence, short periods). */
const audioArb: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ minLength: LENGTH, maxLength: LENGTH }),
  fc.constant(new Uint8Array(LENGTH)),
  fc.uint8Array({ minLength: 1, maxLength: 6 }).map((pattern) => {
    const out = new Uint8Array(LENGTH);
    for (let i = 0; i < LENGTH; i++) out[i] = pattern[i % pattern.length];
    return out;
  }),
  // Silence with occasional bursts of "speech".
  fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 400 })), { minLength: 1, maxLength: 20, size: "max" }).chain((segments) =>
    fc.uint8Array({ minLength: LENGTH, maxLength: LENGTH }).map((noise) => {
      const out = new Uint8Array(LENGTH);
      let at = 0;
      for (const [loud, len] of segments) {
        for (let i = 0; i < len && at < LENGTH; i++, at++) out[at] = loud ? noise[at] : 0;
      }
      return out;
    }),
  ),
);

interface SimResult {
  expected: Uint8Array;
  accepted: Uint8Array;
  warnings: number;
  maxRetained: number;
  acksSent: number;
  /** Resumes where the client missed at least one ack the server sent. */
  lostAckResumes: number;
}

/**
 * Simulates the official client (buffer since the last received ack, resend
 * of the whole buffer on open in frames of `resendFrame` bytes), a lossy
 * connection (frames and acks in flight are lost on a drop) and the server
 * (ledger + acks once transcribed).
 */
function simulate(audio: Uint8Array, actions: Action[], resendFrame: number, options: AckLedgerOptions, alignBytes = 1): SimResult {
  const ledger = createAckLedger({ ...options, alignBytes });
  const accepted: Uint8Array[] = [];
  let clientEnd = 0;
  let bytesSent = 0;
  let open = true;
  let up: Uint8Array[] = [];
  let down: Array<{ end: number; at: number }> = [];
  let transcribed = 0;
  let warnings = 0;
  let maxRetained = 0;
  let acksSent = 0;
  let lostAckResumes = 0;
  const confirmAfter = options.confirmAfterBytes ?? Number.POSITIVE_INFINITY;

  const clientGetsAck = () => {
    const ack = down.shift()!;
    expect(ack.end).toBeGreaterThanOrEqual(bytesSent);
    bytesSent = ack.end;
  };
  const serverReceives = (n: number) => {
    for (let i = 0; i < n && up.length > 0; i++) {
      accepted.push(ledger.accept(up.shift()!));
      maxRetained = Math.max(maxRetained, ledger.retainedBytes);
      // A connection that kept delivering `confirmAfter` bytes after an ack has delivered the ack.
      while (down.length > 0 && ledger.received - down[0].at >= confirmAfter) clientGetsAck();
    }
  };
  const reconnect = () => {
    if (bytesSent < ledger.acked) lostAckResumes++;
    open = true;
    ledger.beginResume();
    for (let at = bytesSent; at < clientEnd; at += resendFrame) {
      up.push(audio.slice(at, Math.min(clientEnd, at + resendFrame)));
    }
  };

  for (const action of actions) {
    switch (action.k) {
      case "produce": {
        const n = Math.min(action.n, audio.length - clientEnd);
        if (n === 0) break;
        const chunk = audio.slice(clientEnd, clientEnd + n);
        clientEnd += n;
        if (open) up.push(chunk);
        break;
      }
      case "recv":
        serverReceives(action.n);
        break;
      case "transcribe":
      case "ackThenDrop": {
        if (!open) break;
        transcribed = Math.max(transcribed, transcribed + Math.floor(action.frac * (ledger.received - transcribed)));
        const ack = ledger.nextAck(transcribed);
        if (ack) {
          acksSent++;
          expect(ack.byteRange[1]).toBeGreaterThan(ack.byteRange[0]);
          expect((((ack.byteRange[1] - (options.alignOrigin ?? 0)) % alignBytes) + alignBytes) % alignBytes).toBe(0);
          down.push({ end: ack.byteRange[1], at: ledger.received });
        }
        if (action.k === "ackThenDrop") {
          open = false;
          up = [];
          down = [];
        }
        break;
      }
      case "acks":
        for (let i = 0; i < action.n && down.length > 0; i++) clientGetsAck();
        break;
      case "drop":
        if (!open) break;
        open = false;
        up = [];
        down = [];
        break;
      case "reconnect":
        if (!open) reconnect();
        break;
    }
  }
  if (!open) reconnect();
  serverReceives(Number.POSITIVE_INFINITY);
  warnings = ledger.warnings;
  return {
    expected: audio.subarray(0, clientEnd),
    accepted: Buffer.concat(accepted),
    warnings,
    maxRetained,
    acksSent,
    lostAckResumes,
  };
}

describe("ack ledger resume alignment", () => {
  test("property: accepted bytes equal the original stream (lossless, no duplicates)", () => {
    let lostAckResumes = 0;
    fc.assert(
      fc.property(
        audioArb,
        fc.array(actionArb, { minLength: 20, maxLength: 150, size: "max" }),
        fc.integer({ min: 1, max: 700 }),
        fc.constantFrom(1, 2, 4),
        (audio, actions, resendFrame, align) => {
          const result = simulate(audio, actions, resendFrame, {}, align);
          lostAckResumes += result.lostAckResumes;
          expect(Buffer.from(result.accepted).equals(Buffer.from(result.expected))).toBe(true);
          expect(result.warnings).toBe(0);
        },
      ),
      { numRuns: 400 },
    );
    // The runs must exercise the hard case: resumes that start before the server's last ack.
    expect(lostAckResumes).toBeGreaterThan(10);
  });

  test("property: ack ends are whole sample frames counted from the header's end, resumes stay exact", () => {
    fc.assert(
      fc.property(
        audioArb,
        fc.array(actionArb, { minLength: 20, maxLength: 150, size: "max" }),
        fc.integer({ min: 1, max: 700 }),
        fc.constantFrom(2, 3, 4, 6, 8),
        fc.constantFrom(0, 44, 45, 58),
        (audio, actions, resendFrame, align, origin) => {
          const result = simulate(audio, actions, resendFrame, { alignOrigin: origin }, align);
          expect(Buffer.from(result.accepted).equals(Buffer.from(result.expected))).toBe(true);
          expect(result.warnings).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("an ack never splits a sample: [0, 3199] of 16-bit audio is [0, 3198] or [0, 3200]", () => {
    const noise = new Uint8Array(3200).map((_, i) => (i * 7919 + 13) % 251);
    const mono16 = createAckLedger({ alignBytes: 2 });
    mono16.accept(noise);
    expect(mono16.nextAck(3200)!.byteRange).toEqual([0, 3198]);
    expect(mono16.nextAck(3200, { force: true })!.byteRange).toEqual([3198, 3200]);
    // 24-bit stereo after a 44-byte WAV header: boundaries at 44 + 6k.
    const stereo24 = createAckLedger({ alignBytes: 6 });
    stereo24.alignFrom(44);
    stereo24.accept(noise);
    const first = stereo24.nextAck(1000)!;
    expect((first.byteRange[1] - 44) % 6).toBe(0);
    expect(stereo24.nextAck(3200, { force: true })!.byteRange[1]).toBe(3200 - ((3200 - 44) % 6));
  });

  test("property: still exact when delivered acks release the retained tail", () => {
    fc.assert(
      fc.property(
        audioArb,
        fc.array(actionArb, { minLength: 20, maxLength: 150, size: "max" }),
        fc.integer({ min: 1, max: 700 }),
        fc.integer({ min: 50, max: 800 }),
        (audio, actions, resendFrame, confirmAfterBytes) => {
          const result = simulate(audio, actions, resendFrame, { confirmAfterBytes });
          expect(Buffer.from(result.accepted).equals(Buffer.from(result.expected))).toBe(true);
          expect(result.warnings).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("random audio is acknowledged promptly; all-zero audio postpones acks instead of risking a wrong resume", () => {
    const noise = new Uint8Array(4000).map((_, i) => (i * 7919 + 13) % 251);
    const ledger = createAckLedger({ alignBytes: 2 });
    ledger.accept(noise.subarray(0, 3200));
    expect(ledger.nextAck(3000)).toEqual({ byteRange: [0, 3000], ambiguous: false });

    const silent = createAckLedger({ alignBytes: 2 });
    silent.accept(new Uint8Array(3200));
    expect(silent.nextAck(3000)).toBeNull();
    // Speech after the silence makes a boundary provable again.
    silent.accept(noise.subarray(0, 1000));
    const ack = silent.nextAck(3200);
    expect(ack).not.toBeNull();
    expect(ack!.ambiguous).toBe(false);
    expect(ack!.byteRange[0]).toBe(0);
  });

  test("all-zero stream: the lost last ack is still resolved exactly", () => {
    // Acks at 1000 and 2000 are provable thanks to a marker; the resend then
    // starts at 1000 (the ack at 2000 was lost) and is all zeros around it.
    const audio = new Uint8Array(4000);
    audio[2500] = 1; // the only non-zero byte, after both acks
    const ledger = createAckLedger();
    ledger.accept(audio.subarray(0, 2600));
    const first = ledger.nextAck(1000);
    const second = ledger.nextAck(2000);
    expect(first?.byteRange).toEqual([0, 1000]);
    expect(second?.byteRange).toEqual([1000, 2000]);
    ledger.beginResume();
    const out = [ledger.acceptResent(audio.subarray(1000, 3000)), ledger.acceptResent(audio.subarray(3000, 4000))];
    expect(Buffer.concat(out).equals(Buffer.from(audio.subarray(2600)))).toBe(true);
    expect(ledger.received).toBe(4000);
    expect(ledger.warnings).toBe(0);
  });

  test("resume needing several chunks to disambiguate, and a resend that is not the same stream", () => {
    const audio = new Uint8Array(2000).map((_, i) => (i * 31 + (i >> 5)) & 0xff);
    const ledger = createAckLedger();
    ledger.accept(audio.subarray(0, 1500));
    ledger.nextAck(500);
    ledger.nextAck(1000);
    ledger.beginResume();
    // One byte at a time: a single byte may match several candidates.
    const out: Uint8Array[] = [];
    for (let i = 500; i < 2000; i++) out.push(ledger.acceptResent(audio.subarray(i, i + 1)));
    expect(Buffer.concat(out).equals(Buffer.from(audio.subarray(1500)))).toBe(true);

    const warnings: string[] = [];
    const other = createAckLedger({ onWarning: (w) => warnings.push(w) });
    other.accept(audio.subarray(0, 1000));
    other.nextAck(600);
    other.beginResume();
    const foreign = new Uint8Array(300).fill(0xee);
    const taken = other.acceptResent(foreign);
    expect(Buffer.from(taken).equals(Buffer.from(foreign))).toBe(true);
    expect(other.received).toBe(1300);
    expect(warnings).toHaveLength(1);
  });

  test("base64 audio_chunk payloads and binary frames align identically", () => {
    const audio = new Uint8Array(3000).map((_, i) => (i * 131) % 256);
    const binary = createAckLedger();
    const json = createAckLedger();
    for (const ledger of [binary, json]) {
      ledger.accept(audio.subarray(0, 2000));
      ledger.nextAck(1200);
      ledger.beginResume();
    }
    const fromBinary = binary.acceptResent(audio.subarray(1200, 3000));
    const chunk = Buffer.from(audio.subarray(1200, 3000)).toString("base64");
    const fromJson = json.acceptResent(new Uint8Array(Buffer.from(chunk, "base64")));
    expect(Buffer.from(fromBinary).equals(Buffer.from(audio.subarray(2000)))).toBe(true);
    expect(Buffer.from(fromJson).equals(Buffer.from(fromBinary))).toBe(true);
  });

  test("retention is bounded: forced acks are flagged as ambiguous, delivered acks release the tail", () => {
    const warnings: string[] = [];
    const ledger = createAckLedger({ maxRetainBytes: 1000, confirmAfterBytes: 500, onWarning: (w) => warnings.push(w) });
    let maxRetained = 0;
    for (let i = 0; i < 40; i++) {
      ledger.accept(new Uint8Array(100));
      maxRetained = Math.max(maxRetained, ledger.retainedBytes);
      ledger.nextAck(ledger.received - 50);
    }
    expect(ledger.acked).toBeGreaterThan(0);
    expect(warnings.length).toBeGreaterThan(0);
    expect(maxRetained).toBeLessThanOrEqual(1000 + 500 + 100);
    expect(ledger.nextAck(ledger.received, { force: true })?.ambiguous).toBe(true);
  });

  test("an ack per frame for a long session: the candidates stay those of the last confirmAfterBytes", () => {
    // 100 ms frames of 16-bit audio at 16 kHz with a noise floor, acknowledged one frame behind, for five minutes.
    const frame = 3200;
    const ledger = createAckLedger({ alignBytes: 2, confirmAfterBytes: 30 * 32000, maxRetainBytes: 120 * 32000 });
    let seed = 7;
    const noise = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24) & 3;
    let most = 0;
    for (let i = 0; i < 3000; i++) {
      ledger.accept(new Uint8Array(frame).map(noise));
      if (i > 0) expect(ledger.nextAck(ledger.received - frame)).not.toBeNull();
      most = Math.max(most, ledger.resumeCandidates.length);
    }
    // 30 s of acks one frame apart, plus the newest delivered one.
    expect(most).toBeLessThanOrEqual(302);
    expect(ledger.retainedBytes).toBeLessThanOrEqual(31 * 32000 + frame);
  });

  test("no acknowledgment is issued while a resume is unresolved", () => {
    const audio = new Uint8Array(1000).map((_, i) => i % 253);
    const ledger = createAckLedger();
    ledger.accept(audio.subarray(0, 800));
    ledger.nextAck(400);
    ledger.beginResume();
    expect(ledger.nextAck(800)).toBeNull();
    expect(ledger.resuming).toBe(true);
    ledger.acceptResent(audio.subarray(0, 10));
    // Candidates {0, 400}: ten bytes from 0 already rule out 400.
    expect(ledger.resuming).toBe(true);
    const rest = ledger.acceptResent(audio.subarray(10, 1000));
    expect(Buffer.from(rest).equals(Buffer.from(audio.subarray(800)))).toBe(true);
    expect(ledger.resuming).toBe(false);
  });
});
