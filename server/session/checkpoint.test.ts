import { describe, expect, test } from "bun:test";
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { silentLogger } from "../../common/log.ts";
import { SqliteStore } from "../store/sqlite.ts";
import { Checkpointer, restoreCheckpoint, type CheckpointCapture } from "./checkpoint.ts";

/** A stream whose byte i is i % 251, and the state of a session that received `received` bytes. */
const stream = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);
const utterance = (start: number, end: number, text: string): Utterance => ({ start, end, confidence: 1, channel: 0, words: [], text, language: "en" });

class FakeSession {
  received = 0;
  tailStart = 0;
  finals: { id: string; utterance: Utterance }[] = [];
  confirmedUntil = 0;
  capture = (): CheckpointCapture => {
    const all = stream(this.received);
    return {
      state: {
        version: 1,
        received: this.received,
        tailStart: this.tailStart,
        candidates: [this.tailStart],
        replayFrom: this.tailStart,
        replayFromSeconds: this.tailStart / 32000,
        headerBytes: 0,
        suppressBefore: 0,
        indexBase: [this.finals.length],
        lastFinalEnd: [0],
        transcriptionTimeS: 0,
        confirmedUntil: this.confirmedUntil,
      },
      bytesFrom: (o) => {
        if (o < this.tailStart) throw new RangeError("not retained");
        return all.slice(o);
      },
      finalCount: this.finals.length,
      finalsFrom: (i) => this.finals.slice(i),
    };
  };
}

describe("Checkpointer", () => {
  test("an ack is released once a checkpoint covering it is stored; acks meanwhile share one write; the restore rebuilds the tail", async () => {
    const store = new SqliteStore(":memory:");
    const s = new FakeSession();
    const cp = new Checkpointer(store, "s1", silentLogger, s.capture);
    const released: number[] = [];
    s.received = 1000;
    cp.commit(() => released.push(1));
    expect(released).toEqual([]); // not before the write
    s.received = 2000;
    s.finals.push({ id: "0:0", utterance: utterance(0, 0.02, "a") });
    cp.commit(() => released.push(2));
    s.received = 3000;
    cp.commit(() => released.push(3));
    await cp.idle();
    expect(released).toEqual([1, 2, 3]);
    expect(cp.stats.acks).toBe(3);
    expect(cp.stats.writes).toBe(2); // the first, then one for the two acks that waited

    // The tail moves on: chunks before it are released.
    s.tailStart = 2500;
    s.received = 4000;
    s.confirmedUntil = 0.03;
    s.finals.push({ id: "0:1", utterance: utterance(0.05, 0.1, "b") });
    cp.commit(() => released.push(4));
    await cp.idle();
    const stored = (await store.loadCheckpoint("s1"))!;
    // [0, 1000) released; [1000, 3000) is the batched write's chunk, [3000, 4000) the last one's.
    expect(stored.audio.map((c) => [c.offset, c.bytes.length])).toEqual([
      [1000, 2000],
      [3000, 1000],
    ]);
    const restored = restoreCheckpoint(stored, "s1", () => 0)!;
    expect(restored.session.received).toBe(4000);
    expect(restored.session.tail).toEqual(stream(4000).slice(2500));
    expect(restored.session.utterances.map((u) => u.text)).toEqual(["a", "b"]);
    expect(restored.session.finalIds).toEqual(["0:0", "0:1"]);
    // Finals ending after the confirmed point are sent again on resume.
    expect(restored.session.unconfirmed!.map((m) => (m as { data: { id: string } }).data.id)).toEqual(["0:1"]);

    // A new holder starts over (reset): the stored checkpoint is replaced whole.
    const next = new FakeSession();
    next.received = 500;
    const cp2 = new Checkpointer(store, "s1", silentLogger, next.capture);
    cp2.commit(() => {});
    await cp2.idle();
    const replaced = restoreCheckpoint(await store.loadCheckpoint("s1"), "s1", () => 0)!;
    expect(replaced.session.received).toBe(500);
    expect(replaced.session.utterances).toEqual([]);

    // Closed: nothing more is written or released.
    cp2.close();
    cp2.commit(() => released.push(99));
    await cp2.idle();
    expect(released).not.toContain(99);
    await store.close();
  });

  test("before each write, the recording is asked to hold the stream up to the tail the write stores", async () => {
    const store = new SqliteStore(":memory:");
    const s = new FakeSession();
    const asked: number[] = [];
    const cp = new Checkpointer(store, "s1", silentLogger, s.capture, (tailStart) => asked.push(tailStart));
    s.received = 4000;
    s.tailStart = 1000;
    cp.commit(() => {});
    await cp.idle();
    s.received = 9000;
    s.tailStart = 6000;
    cp.commit(() => {});
    await cp.idle();
    expect(asked).toEqual([1000, 6000]);
    expect((await store.loadCheckpoint("s1"))!.audio[0]!.offset).toBe(6000);
    await store.close();
  });

  test("a checkpoint missing audio it needs is not restored", () => {
    const state = { version: 1, received: 100, tailStart: 0, finals: 0, savedAt: 0, confirmedUntil: 0 };
    expect(restoreCheckpoint({ state, audio: [{ offset: 10, bytes: new Uint8Array(90) }], finals: [] }, "s", () => 0)).toBeNull();
    expect(restoreCheckpoint({ state, audio: [{ offset: 0, bytes: new Uint8Array(90) }], finals: [] }, "s", () => 0)).toBeNull();
    expect(restoreCheckpoint({ state, audio: [{ offset: 0, bytes: new Uint8Array(100) }], finals: [] }, "s", () => 0)).not.toBeNull();
    expect(restoreCheckpoint(null, "s", () => 0)).toBeNull();
  });
});
