/**
 * Faults in distributed mode with real processes (two gateways, two workers, one persistent Redis);
 * each faulted session must end with the same finals, transcript and duration as an uninterrupted
 * run of the same audio:
 *   - a worker killed (SIGKILL) mid-job: the other worker takes the job over;
 *   - the gateway holding a session stopped (SIGTERM) mid-stream: the client gets 1012, reconnects
 *     to the other gateway with the same URL token and resends its unacknowledged audio;
 *   - a client that dropped its connection reconnects to another gateway while the holder lives: the
 *     holder hands the session over;
 *   - Redis gone for 5 s mid-stream (killed and restarted on its port; frozen and thawed).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "redis";
import { chunks, outcome, ResumingClient, spellingSamples, toPcm16, words } from "../pipeline/helpers.ts";
import { eventually } from "../distributed/workers.ts";
import { getSession, onGateway, postSession, startCluster, type Cluster, type GatewayProcess } from "./harness.ts";
import { RedisKeys } from "../../common/redis/keys.ts";

const TOKENS = ["a", "b", "zero"] as const;
const init = { model: "trantoria-1", language_config: { languages: ["en"] }, messages_config: { receive_acknowledgments: true } };
const pcm = toPcm16(spellingSamples([...TOKENS]));
const frames = chunks(pcm, 3200);
const half = Math.floor(frames.length / 2);
/** Workers of the worker-failure test hold every job this long, so one is surely mid-job when killed. */
const SLOW_WORKER = { WORKER_JOB_DELAY_MS: "1000" };

let cluster: Cluster;
let probe: ReturnType<typeof createClient>;
let reference: ReturnType<typeof outcome>;

/** Resolves `p`, or rejects after `ms` with `what`. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

async function createOn(g: GatewayProcess): Promise<{ id: string; url: string }> {
  const res = await postSession(g, init);
  const body = await res.json();
  if (res.status !== 201) throw new Error(`POST /v2/live on ${g.id} answered ${res.status}: ${JSON.stringify(body)}`);
  return body as { id: string; url: string };
}

const acked = (c: ResumingClient) => c.messages.some((m) => m.type === "audio_chunk" && m.acknowledged);

/**
 * Waits for the session to end (close 1000). A close 1012 (service restarting) or 1006 (connection
 * lost) is answered as a client must: reconnect with the same token, to a live gateway, resending
 * the unacknowledged audio and the stop. Returns the number of reconnections.
 */
async function finish(c: ResumingClient, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let seen = c.closes.length;
  let reconnects = 0;
  let ended = false;
  void c.done.then(() => (ended = true));
  while (!ended) {
    if (Date.now() > deadline) throw new Error(`session did not end; closes ${JSON.stringify(c.closes)}, messages ${c.messages.map((m) => m.type).join(",")}`);
    if (c.closes.length > seen) {
      const code = c.closes[c.closes.length - 1]!;
      seen = c.closes.length;
      if (code !== 1012 && code !== 1006) throw new Error(`session closed with ${code}; closes ${JSON.stringify(c.closes)}`);
      await Bun.sleep(300);
      const live = cluster.gateways.filter((g) => g.alive());
      await within(c.connect(onGateway(c.url, live[reconnects % live.length]!)), 30_000, "reconnection");
      c.stop();
      reconnects++;
    }
    await Bun.sleep(50);
  }
  return reconnects;
}

/** Outcomes must be equal; utterance bounds may move a little when the VAD restarted on another gateway. */
function expectSameAs(got: ReturnType<typeof outcome>, resumed: boolean) {
  expect(got.finals.map((f) => words(f[1] as string))).toEqual([...TOKENS]);
  expect(got.result).toBe(reference.result); // words only: see outcome()
  expect(got.duration).toBe(reference.duration);
  if (!resumed) {
    expect(got.finals).toEqual(reference.finals);
    return;
  }
  got.finals.forEach((f, i) => {
    expect(f[0]).toBe(reference.finals[i]![0]);
    expect(Math.abs((f[2] as number) - (reference.finals[i]![2] as number))).toBeLessThan(0.25);
    expect(Math.abs((f[3] as number) - (reference.finals[i]![3] as number))).toBeLessThan(0.25);
  });
}

/** The session is stored done with the reference transcript's words, as every live gateway sees it. */
async function expectStoredDone(id: string) {
  for (const g of cluster.gateways.filter((x) => x.alive())) {
    const { status, body } = await getSession(g, id);
    expect({ gateway: g.id, status, session: body?.status }).toEqual({ gateway: g.id, status: 200, session: "done" });
    expect(words(body.result?.transcription?.full_transcript ?? "")).toBe(reference.result);
  }
}

beforeAll(async () => {
  cluster = await startCluster({ gateways: 2, workers: 2, persistentRedis: true, name: "faults" });
  probe = createClient({ url: cluster.redis.url, RESP: 2 });
  probe.on("error", () => {});
  await probe.connect();
  // The uninterrupted run.
  const s = await createOn(cluster.gateways[0]!);
  const c = new ResumingClient(s.url);
  await c.connect();
  for (const f of frames) c.send(f);
  c.stop();
  await within(c.done, 60_000, "the reference session to end");
  reference = outcome(c.messages);
}, 120_000);

afterAll(async () => {
  probe?.destroy();
  await cluster?.stop();
});

describe("faults", () => {
  test("the uninterrupted run transcribes every clip", () => {
    expect(reference.finals.map((f) => words(f[1] as string))).toEqual([...TOKENS]);
    expect(reference.duration).toBeCloseTo(pcm.length / 32000, 2);
  });

  test("kill -9 of a worker mid-job: the other worker takes the job over (or its gateway withdraws a job it no longer wants); same result", async () => {
    // Two slow workers replace the usual ones (stopped cleanly, they deregister at once).
    const usual = cluster.workers.splice(0);
    await Promise.all([cluster.addWorker(undefined, SLOW_WORKER), cluster.addWorker(undefined, SLOW_WORKER)]);
    await Promise.all(usual.map((w) => w.kill("SIGTERM")));

    const [g1, g2] = cluster.gateways as [GatewayProcess, GatewayProcess];
    const s = await createOn(g1);
    const c = new ResumingClient(onGateway(s.url, g2));
    await c.connect();
    for (const f of frames) c.send(f);
    c.stop();

    // Kill the first worker seen holding a job (of any priority tier's stream).
    const streams = new RedisKeys(cluster.prefix).jobStreams("trantoria-1");
    const held = async (count: number) =>
      (await Promise.all(streams.map(async (stream) => (await probe.xPendingRange(stream, "workers", "-", "+", count)).map((p) => ({ stream, ...p }))))).flat();
    let victimId = "";
    await eventually(
      async () => {
        const pending = await held(10);
        victimId = pending.find((p) => cluster.workers.some((w) => w.id === p.consumer))?.consumer ?? "";
        return victimId !== "";
      },
      20_000,
      "a worker to take a job",
    );
    const victim = cluster.workers.find((w) => w.id === victimId)!;
    await victim.kill("SIGKILL");
    cluster.workers.splice(cluster.workers.indexOf(victim), 1);

    expect(await finish(c, 60_000)).toBe(0);
    expect(c.closes).toEqual([1000]);
    expectSameAs(outcome(c.messages), false);
    const survivor = cluster.workers[0]!;
    // The job the victim held is taken over by the survivor or, when its session no longer wants it (a
    // speculative decode that the final did not use), withdrawn by its gateway: nothing waits on it.
    const victimJobs = (await held(100)).filter((p) => p.consumer === victimId);
    const withdrawn = async () => (await Promise.all(victimJobs.map(({ stream, id }) => probe.xRange(stream, id, id)))).every((r) => (r?.length ?? 0) === 0);
    await eventually(async () => survivor.output().includes('"msg":"took over idle job"') || (await withdrawn()), 5_000, "the survivor to take the job over, or its gateway to withdraw it");
    await expectStoredDone(s.id);

    // Back to two workers at full speed.
    await Promise.all([cluster.addWorker(), cluster.addWorker()]);
    await survivor.kill("SIGTERM");
    cluster.workers.splice(cluster.workers.indexOf(survivor), 1);
  }, 90_000);

  test("SIGTERM of the gateway holding a session: 1012, the client resumes on the other gateway; same result; exit 0", async () => {
    const [holder, other] = cluster.gateways as [GatewayProcess, GatewayProcess];
    const s = await createOn(holder);
    const c = new ResumingClient(s.url);
    await c.connect();
    const paced = async (part: Uint8Array[]) => {
      for (const f of part) {
        c.send(f);
        await Bun.sleep(10); // about 10x real time
      }
    };
    const quarter = Math.floor(frames.length / 4);
    await paced(frames.slice(0, half));
    await eventually(() => acked(c) && c.messages.some((m) => m.type === "transcript" && m.data.is_final), 30_000, "an acknowledgment and a final");

    holder.proc.kill("SIGTERM");
    // The client goes on streaming while the gateway stops.
    await paced(frames.slice(half, half + quarter));
    await eventually(() => c.closes.length > 0, 30_000, "the socket to close");
    expect(c.closes).toEqual([1012]);
    // What follows is produced while the client is away: it keeps it with what was not acknowledged.
    await paced(frames.slice(half + quarter));
    expect(c.retained).toBeGreaterThan(0);

    await within(c.connect(onGateway(s.url, other)), 30_000, "reconnecting to the other gateway");
    c.stop();
    expect(await within(holder.exited, 30_000, "the stopped gateway to exit")).toBe(0);
    cluster.gateways.splice(cluster.gateways.indexOf(holder), 1);

    expect(await finish(c, 60_000)).toBe(0);
    expect(c.closes).toEqual([1012, 1000]);
    expectSameAs(outcome(c.messages), true);
    await expectStoredDone(s.id);

    await cluster.addGateway();
  }, 120_000);

  test("a dropped client reconnecting to another gateway: the holder hands the session over; same result", async () => {
    const [holder, other] = cluster.gateways as [GatewayProcess, GatewayProcess];
    const s = await createOn(holder);
    const c = new ResumingClient(s.url);
    await c.connect();
    for (const f of frames.slice(0, half)) c.send(f);
    await eventually(() => acked(c) && c.messages.some((m) => m.type === "transcript" && m.data.is_final), 30_000, "an acknowledgment and a final");
    await c.drop();
    // Audio produced while away is kept with what was not acknowledged, then resent on the other gateway.
    for (const f of frames.slice(half)) c.send(f);
    await within(c.connect(onGateway(s.url, other)), 30_000, "reconnecting to the other gateway");
    c.stop();
    expect(await finish(c, 60_000)).toBe(0);
    expect(c.closes).toEqual([4000, 1000]);
    expectSameAs(outcome(c.messages), true);
    await expectStoredDone(s.id);
    expect(holder.alive()).toBe(true);
  }, 90_000);

  for (const kind of ["killed and restarted with its data", "frozen (SIGSTOP)"] as const) {
    // Outages need a test-owned redis-server (not an external REDIS_URL).
    test.skipIf(!!process.env.REDIS_URL)(`Redis ${kind} for 5 s mid-stream: sessions stall, then all complete with the same result`, async () => {
      const gs = cluster.gateways as [GatewayProcess, GatewayProcess];
      // Created on either gateway, streamed on the same one or the other.
      const plan = [
        [0, 0],
        [1, 0],
        [0, 1],
        [1, 1],
      ] as const;
      const sessions = await Promise.all(
        plan.map(async ([postOn, streamOn]) => {
          const s = await createOn(gs[postOn]);
          const c = new ResumingClient(onGateway(s.url, gs[streamOn]));
          await c.connect();
          for (const f of frames.slice(0, half)) c.send(f);
          return { id: s.id, c };
        }),
      );
      await eventually(() => sessions.every(({ c }) => acked(c)), 30_000, "every session to be acknowledged");

      if (kind === "frozen (SIGSTOP)") cluster.redis.pause();
      else await cluster.redis.stop();
      let outage = true;
      let endedDuringOutage = 0;
      for (const { c } of sessions) void c.done.then(() => outage && endedDuringOutage++);
      for (const { c } of sessions) {
        for (const f of frames.slice(half)) c.send(f);
        c.stop();
      }
      await Bun.sleep(5_000);
      // Nothing can end while the store and the queue are away.
      expect(endedDuringOutage).toBe(0);
      outage = false;
      if (kind === "frozen (SIGSTOP)") cluster.redis.resume();
      else await cluster.redis.start();

      const reconnects = await Promise.all(sessions.map(({ c }) => finish(c, 90_000)));
      for (const [i, { c }] of sessions.entries()) {
        expect({ session: i, lastClose: c.closes.at(-1) }).toEqual({ session: i, lastClose: 1000 });
        expectSameAs(outcome(c.messages), reconnects[i]! > 0);
      }
      for (const { id } of sessions) await expectStoredDone(id);
      if (reconnects.some((n) => n > 0)) console.log(`Redis ${kind}: reconnections per session ${JSON.stringify(reconnects)}`);
    }, 120_000);
  }
});
