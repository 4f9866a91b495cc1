/**
 * Distributed mode end to end with real processes: two gateways (`bun server/main.ts`) and two
 * workers (`bun workers/main.ts`) on one Redis. Twenty concurrent sessions, created on one gateway
 * and streamed on the same or the other one, come out exactly as the same audio does in embedded
 * mode; every session is visible, done, from both gateways; the conformance suite passes against a
 * gateway of the cluster; inference ran on both workers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formatReport } from "../../conformance/report.ts";
import { runSuite } from "../../conformance/run.ts";
import { validateLiveSession, validateLiveSessionInitResponse } from "../../generated/validators.ts";
import { chunks, createSession, outcome, ResumingClient, spellingSamples, startPipelineService, toPcm16, words } from "../pipeline/helpers.ts";
import { wordEdits } from "../asr/wer.ts";
import { completedJobs, getSession, onGateway, postSession, startCluster, type Cluster, type GatewayProcess } from "./harness.ts";

const TOKENS = ["a", "b", "zero"] as const;
const init = { model: "trantoria-1", language_config: { languages: ["en"] }, messages_config: { receive_acknowledgments: true } };
/** Three different streams: the word clips in three rotations. */
const ORDERS = TOKENS.map((_, r) => [...TOKENS.slice(r), ...TOKENS.slice(0, r)]);
const STREAMS = ORDERS.map((order) => chunks(toPcm16(spellingSamples(order)), 3200));
const SESSIONS = 8;

let cluster: Cluster;
const references: ReturnType<typeof outcome>[] = [];

beforeAll(async () => {
  // The embedded reference: the same streams through one in-process service.
  const svc = await startPipelineService();
  try {
    for (const frames of STREAMS) {
      const s = await createSession(svc, init);
      const c = new ResumingClient(s.url);
      await c.connect();
      for (const f of frames) c.send(f);
      c.stop();
      await c.done;
      references.push(outcome(c.messages));
    }
  } finally {
    await svc.stop();
  }
  cluster = await startCluster({ gateways: 2, workers: 2, name: "cluster" });
  // The bootstrap account's default plan allows 10 open sessions; this test may run more at once.
  const bootstrap = (await cluster.admin().accountsList.query()).find((a) => a.name === "default")!;
  await cluster.admin().planSet.mutate({ accountId: bootstrap.id, maxConcurrentSessions: 100 });
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
});

describe("two gateways, two workers, one Redis", () => {
  test("the embedded reference transcribes every clip of every stream", () => {
    // One final per clip. A lone letter is where tiny.en's beam search may hear another word ("a" as
    // "I" after a pause): one word of the nine may differ. The cluster must then equal this exactly.
    const heard = references.map((r) => r.finals.map((f) => words(f[1] as string)));
    expect(heard.map((h) => h.length)).toEqual(ORDERS.map((o) => o.length));
    expect(wordEdits(ORDERS.flat(), heard.flat())).toBeLessThanOrEqual(1);
  });

  test("8 concurrent sessions over both gateways: same finals, transcript and duration as embedded; visible from both gateways", async () => {
    const [g1, g2] = cluster.gateways as [GatewayProcess, GatewayProcess];
    const runs = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) => {
        // POST alternates gateways; the socket goes to the same gateway for half of the sessions
        // and to the other one for the rest.
        const postOn = i % 2 === 0 ? g1 : g2;
        const streamOn = Math.floor(i / 2) % 2 === 0 ? g1 : g2;
        const res = await postSession(postOn, init);
        const created = (await res.json()) as { id: string; url: string };
        expect(res.status).toBe(201);
        expect(validateLiveSessionInitResponse(created)).toBe(true);
        expect(new URL(created.url).port).toBe(String(postOn.port));
        const c = new ResumingClient(onGateway(created.url, streamOn));
        await c.connect();
        const frames = STREAMS[i % STREAMS.length]!;
        for (let k = 0; k < frames.length; k++) {
          c.send(frames[k]!);
          if (k % 10 === 9) await Bun.sleep(5); // interleave the sessions' streams
        }
        c.stop();
        const ended = await Promise.race([c.done.then(() => true), Bun.sleep(150_000).then(() => false)]);
        return { i, id: created.id, client: c, ended };
      }),
    );

    for (const run of runs) {
      const reference = references[run.i % STREAMS.length]!;
      expect({ session: run.i, ended: run.ended, closes: run.client.closes }).toEqual({ session: run.i, ended: true, closes: [1000] });
      const got = outcome(run.client.messages);
      // Same utterances (channel, bounds) and duration as embedded. Whisper conditions each final on
      // the channel's earlier text, so a borderline one-letter clip may be heard differently: at most
      // one word of a session's transcript may differ from the embedded run.
      const bounds = (o: typeof got) => ({ duration: o.duration, finals: o.finals.map(([c, , s, e]) => [c, s, e]) });
      expect({ session: run.i, ...bounds(got) }).toEqual({ session: run.i, ...bounds(reference) });
      expect(wordEdits(reference.result.split(" "), got.result.split(" "))).toBeLessThanOrEqual(1);
    }

    // Every session is stored once, done, with the same result, whichever gateway is asked.
    for (const run of runs) {
      const reference = references[run.i % STREAMS.length]!;
      const [a, b] = await Promise.all([getSession(g1, run.id), getSession(g2, run.id)]);
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(validateLiveSession(a.body)).toBe(true);
      expect(a.body.status).toBe("done");
      expect(wordEdits(reference.result.split(" "), words(a.body.result?.transcription?.full_transcript ?? "").split(" "))).toBeLessThanOrEqual(1);
      expect(b.body).toEqual(a.body);
    }
  }, 180_000);

  test("the conformance suite passes against a gateway of the cluster (Redis store, remote workers)", async () => {
    const admin = cluster.admin();
    const account = await admin.accountsCreate.mutate({ name: "conformance", plan: { maxConcurrentSessions: 100_000 } });
    const all = await admin.keysCreate.mutate({ accountId: account.id });
    const unscoped = await admin.keysCreate.mutate({ accountId: account.id, scopes: [] });
    const report = await runSuite({
      target: { baseUrl: cluster.gateways[1]!.url, key: all.key, unscopedKey: unscoped.key },
      seed: 20261121,
      httpRuns: 600,
      wsRuns: 30,
    });
    if (report.failures.length) console.log(formatReport(report));
    expect(report.failures.map((f) => `${f.property}: ${f.violations.map((v) => v.check).join(",")}`)).toEqual([]);
    expect(report.areas.http.cases).toBeGreaterThanOrEqual(550);
    expect(report.areas.ws.cases).toBeGreaterThanOrEqual(30);
    expect(report.statuses.createLiveSession?.[201] ?? 0).toBeGreaterThan(0);
    expect(report.statuses.listLiveSessions?.[200] ?? 0).toBeGreaterThan(0);
    expect(report.closeCodes[1000] ?? 0).toBeGreaterThan(10);
    expect(report.properties.find((p) => p.area === "stateful")?.ok).toBe(true);
    expect(report.areas.callback.cases).toBeGreaterThan(0);
  }, 120_000);

  test("inference ran on both workers", async () => {
    // A clean stop prints what each worker did.
    for (const w of cluster.workers) await w.kill("SIGTERM");
    const done = cluster.workers.map((w) => completedJobs(w));
    expect(done.every((n) => n !== null)).toBe(true);
    for (const n of done) expect(n!).toBeGreaterThan(0);
    // at least one job per final utterance of every session
    expect(done.reduce((s, n) => s! + n!, 0)!).toBeGreaterThanOrEqual(SESSIONS * TOKENS.length);
  }, 30_000);
});
