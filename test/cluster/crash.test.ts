/**
 * A gateway that dies without stopping (`kill -9`) mid-utterance loses nothing: every ack it sent
 * was a stored checkpoint, so the official SDK (behind a TCP balancer, resending everything after its
 * last ack on reconnect) gets the same finals (texts and ids), the same `recording_duration` and a
 * recording that decodes to exactly the bytes sent, as in an uninterrupted run.
 *   - distributed mode: two gateways, two workers, one Redis; the holder is killed, the balancer
 *     fails over to the other gateway, which adopts the session once the dead holder's lease ran out;
 *   - embedded mode: one process (SQLite, in-process inference) killed and started again on the
 *     same DATA_DIR; also right after an acknowledgment that ran ahead of its utterance's final (a
 *     long endpointing window): the client has dropped that audio, the checkpoint still has it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GladiaClient } from "@gladiaio/sdk";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { sharedAudio } from "../helpers/models.ts";
import { chunks, spellingSamples, toPcm16, words, type Msg } from "../pipeline/helpers.ts";
import { tcpBalancer, type TcpBalancer } from "./balancer.ts";
import { BOOTSTRAP_KEY, spawnGateway, startCluster, stopGateway, type Cluster, type GatewayProcess } from "./harness.ts";

const TOKENS = ["a", "b", "zero"] as const;
const init = {
  model: "trantoria-1",
  language_config: { languages: ["en"] },
  encoding: "wav/pcm",
  sample_rate: 16000,
  bit_depth: 16,
  channels: 1,
  messages_config: { receive_acknowledgments: true },
};
const FRAME = 3200;
const clipS = (t: string) => readWavFile(path.join(sharedAudio, `spelling/${t}.wav`)).samples.length / 16000;
const ackEnd = (m: Msg) => (m.type === "audio_chunk" && m.acknowledged ? (m.data.byte_range[1] as number) : 0);
const isFinal = (m: Msg) => m.type === "transcript" && m.data.is_final;

/** A stream, the frames sent before the crash and what the client must have received then. */
interface Scenario {
  init: Record<string, unknown>;
  pcm: Uint8Array;
  frames: Uint8Array[];
  beforeCrash: number;
  crashOnce: (messages: Msg[]) => boolean;
}

function scenario(init: Record<string, unknown>, silenceS: number, beforeCrashS: number, crashOnce: Scenario["crashOnce"]): Scenario {
  const pcm = toPcm16(spellingSamples([...TOKENS], silenceS));
  return { init, pcm, frames: chunks(pcm, FRAME), beforeCrash: Math.ceil((beforeCrashS * 32000) / FRAME), crashOnce };
}

// The stream: 0.5 s of silence, each clip followed by 1 s of silence (see spellingSamples). The crash
// comes once the first word is final and acknowledged and "b" is half sent (its utterance is open).
const endOfA = Math.round((0.5 + clipS("a")) * 32000);
const midUtterance = scenario(init, 1, 0.5 + clipS("a") + 1 + clipS("b") / 2, (ms) => ms.some((m) => ackEnd(m) >= endOfA) && ms.some(isFinal));

// Endpointing 2 s, each clip followed by 3 s of silence; sent up to 1.2 s after the end of "b", so
// its final cannot exist yet. The crash comes once an ack covered the audio of a partial of "b":
// the speculative final of the pause after it returned, the client dropped that audio.
const endOfB3 = 0.5 + clipS("a") + 3 + clipS("b");
const earlyAck = scenario({ ...init, endpointing: 2 }, 3, endOfB3 + 1.2, (ms) => {
  const partialEnds = ms.filter((m) => m.type === "transcript" && !m.data.is_final && m.data.utterance.start > 0.5 + clipS("a")).map((m) => m.data.utterance.end as number);
  return ms.filter(isFinal).length === 1 && ms.some((m) => partialEnds.some((end) => ackEnd(m) / 32000 >= end - 0.002));
});

interface Run {
  id: string;
  messages: Msg[];
  closeCode: number;
  /** Finals, one per id (a resume may send one again), in order: [id, words, start, end]. */
  finals: [string, string, number, number][];
  duration: number;
  /** The recording, decoded to raw 16-bit PCM. */
  recording: Uint8Array;
}

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await Bun.sleep(20);
  }
}

/**
 * Streams the scenario's audio through the balancer with the official SDK (about 10x real time);
 * with `crash`, runs it once the scenario's frames before the crash are sent and its condition holds,
 * then streams the rest (kept by the SDK while it reconnects) and stops once a gateway has adopted
 * the session.
 */
async function run(b: TcpBalancer, sc: Scenario, crash?: () => Promise<void>): Promise<Run> {
  const { frames } = sc;
  const client = new GladiaClient({ apiUrl: b.url, httpHeaders: { "x-service-key": BOOTSTRAP_KEY }, wsTimeout: 120_000 });
  const session = client.liveV2().startSession(sc.init as never);
  const messages: Msg[] = [];
  let connected = false;
  session.on("message", (m) => messages.push(m as Msg));
  const events: string[] = [];
  const t0 = Date.now();
  session.on("connected", () => ((connected = true), events.push(`${Date.now() - t0} connected`)));
  session.on("connecting", (e) => ((connected = false), events.push(`${Date.now() - t0} connecting ${JSON.stringify(e)}`)));
  let sdkEnded = false;
  session.on("ended", (e) => ((sdkEnded = true), events.push(`${Date.now() - t0} ended ${JSON.stringify(e)}`)));
  session.on("error", (e) => events.push(`${Date.now() - t0} error ${String(e)}`));
  const ended = new Promise<{ code: number }>((r) => session.on("ended", (e) => r(e)));
  await until(() => connected, 30_000, "the SDK to connect");
  const paced = async (part: Uint8Array[]) => {
    for (const f of part) {
      session.sendAudio(f);
      await Bun.sleep(10);
    }
  };
  if (crash) {
    await paced(frames.slice(0, sc.beforeCrash));
    await until(() => sc.crashOnce(messages), 30_000, "the messages due before the crash");
    await crash();
    const seen = messages.length;
    await paced(frames.slice(sc.beforeCrash));
    // Adopted: the new holder talks (finals sent again, acks) on an open connection.
    await until(() => sdkEnded || (connected && messages.length > seen), 90_000, "a gateway to adopt the session").catch((e) => {
      throw new Error(`${(e as Error).message}; SDK events: ${events.join(" | ")}`);
    });
    if (sdkEnded) throw new Error(`the session ended instead of being adopted; SDK events: ${events.join(" | ")}`);
  } else {
    await paced(frames);
  }
  session.stopRecording();
  const end = await Promise.race([ended, Bun.sleep(90_000).then(() => ({ code: -1 }))]);
  const id = await session.getSessionId();
  const finals = [...new Map(messages.filter((m) => m.type === "transcript" && m.data.is_final).map((m) => [m.data.id as string, m])).values()].map(
    (m) => [m.data.id, words(m.data.utterance.text), m.data.utterance.start, m.data.utterance.end] as [string, string, number, number],
  );
  const res = await fetch(`${b.url}/v2/live/${id}/file`, { headers: { "x-service-key": BOOTSTRAP_KEY } });
  const recording = res.ok ? decodeFlac(new Uint8Array(await res.arrayBuffer())) : new Uint8Array(0);
  return { id, messages, closeCode: end.code, finals, duration: messages.find((m) => m.type === "stop_recording")?.data?.recording_duration, recording };
}

function decodeFlac(flac: Uint8Array): Uint8Array {
  const dir = mkdtempSync(path.join(tmpdir(), "crash-rec-"));
  try {
    writeFileSync(path.join(dir, "r.flac"), flac);
    const out = Bun.spawnSync(["flac", "-d", "-f", "-s", "--force-raw-format", "--endian=little", "--sign=signed", "-o", path.join(dir, "r.raw"), path.join(dir, "r.flac")]);
    if (out.exitCode !== 0) throw new Error(`flac: ${out.stderr.toString()}`);
    return new Uint8Array(readFileSync(path.join(dir, "r.raw")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The crashed run equals the uninterrupted one. */
function expectSameAs(got: Run, reference: Run, pcm = midUtterance.pcm): void {
  expect(got.closeCode).toBe(1000);
  expect(got.finals.map((f) => f[1])).toEqual([...TOKENS]);
  // Ids: the same, so unique (a final sent again keeps its id).
  expect(got.finals.map((f) => f[0])).toEqual(reference.finals.map((f) => f[0]));
  // The VAD restarts a little before the open utterance: its bounds may move by a few windows.
  got.finals.forEach((f, i) => {
    expect(Math.abs(f[2] - reference.finals[i]![2])).toBeLessThan(0.25);
    expect(Math.abs(f[3] - reference.finals[i]![3])).toBeLessThan(0.25);
  });
  expect(got.duration).toBe(reference.duration);
  expect(got.recording.length).toBe(pcm.length);
  expect(Buffer.compare(got.recording, Buffer.from(pcm))).toBe(0);
}

describe("distributed mode: kill -9 of the gateway holding a session", () => {
  let cluster: Cluster;
  let balancer: TcpBalancer;
  let reference: Run;

  beforeAll(async () => {
    balancer = tcpBalancer();
    cluster = await startCluster({ gateways: 2, workers: 2, name: "crash", gatewayEnv: { PUBLIC_URL: balancer.url } });
    balancer.point(cluster.gateways[0]!.port);
    reference = await run(balancer, midUtterance);
  }, 180_000);

  afterAll(async () => {
    balancer?.stop();
    await cluster?.stop();
  });

  test("the uninterrupted run", () => {
    expect(reference.closeCode).toBe(1000);
    expect(reference.finals.map((f) => f[1])).toEqual([...TOKENS]);
    expect(new Set(reference.finals.map((f) => f[0])).size).toBe(TOKENS.length);
    expect(reference.duration).toBeCloseTo(midUtterance.pcm.length / 32000, 2);
    expect(Buffer.compare(reference.recording, Buffer.from(midUtterance.pcm))).toBe(0);
  });

  test("mid-utterance: the other gateway adopts the session once the lease ran out; same finals, ids, duration and recording", async () => {
    const [holder, other] = cluster.gateways as [GatewayProcess, GatewayProcess];
    balancer.point(holder.port);
    const got = await run(balancer, midUtterance, async () => {
      await holder.kill("SIGKILL");
      balancer.point(other.port);
    });
    try {
      expectSameAs(got, reference);
      expect(other.output()).toContain('"msg":"session restored from its checkpoint"');
    } catch (e) {
      console.log(cluster.dump().slice(-20_000));
      throw e;
    }
    cluster.gateways.splice(cluster.gateways.indexOf(holder), 1);
    await cluster.addGateway();
  }, 180_000);
});

describe("embedded mode: kill -9 of the process, started again on the same DATA_DIR", () => {
  let dataDir: string;
  let balancer: TcpBalancer;
  let gateway: GatewayProcess;
  let reference: Run;
  let count = 0;
  const start = async () =>
    spawnGateway({ redisUrl: "", prefix: "embedded", id: `embedded-${++count}`, dataDir, env: { PUBLIC_URL: balancer.url }, startTimeoutMs: 120_000 });

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "stt-crash-embedded-"));
    balancer = tcpBalancer();
    gateway = await start();
    balancer.point(gateway.port);
    reference = await run(balancer, midUtterance);
  }, 180_000);

  afterAll(async () => {
    balancer?.stop();
    if (gateway) await stopGateway(gateway, 10_000);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("the uninterrupted run", () => {
    expect(reference.closeCode).toBe(1000);
    expect(reference.finals.map((f) => f[1])).toEqual([...TOKENS]);
    expect(Buffer.compare(reference.recording, Buffer.from(midUtterance.pcm))).toBe(0);
  });

  const crash = async () => {
    balancer.point(null);
    await gateway.kill("SIGKILL");
    gateway = await start();
    balancer.point(gateway.port);
  };

  test("mid-utterance: the restarted process resumes from the checkpoint; same finals, ids, duration and recording", async () => {
    try {
      const got = await run(balancer, midUtterance, crash);
      expectSameAs(got, reference);
      expect(gateway.output()).toContain('"msg":"session restored from its checkpoint"');
    } catch (e) {
      console.log(gateway.output().slice(-20_000));
      throw e;
    }
  }, 240_000);

  test("after an ack that ran ahead of its final (endpointing 2 s): the audio the client dropped is transcribed after the restart; same finals, ids, duration and recording", async () => {
    try {
      const early = await run(balancer, earlyAck);
      expect(early.closeCode).toBe(1000);
      expect(early.finals.map((f) => f[1])).toEqual([...TOKENS]);
      const got = await run(balancer, earlyAck, crash);
      expectSameAs(got, early, earlyAck.pcm);
      expect(gateway.output()).toContain('"msg":"session restored from its checkpoint"');
    } catch (e) {
      console.log(gateway.output().slice(-20_000));
      throw e;
    }
  }, 300_000);
});
