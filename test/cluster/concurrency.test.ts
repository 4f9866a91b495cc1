/**
 * The account's concurrent-session limit holds across gateways: with two gateway processes on one
 * Redis, a burst of parallel `POST /v2/live` spread over both is admitted exactly up to the plan's
 * limit and the rest answered 429 with the spec's error body; slots come back when sessions end and
 * when unused URLs expire (60 s).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { validateErrorResponse, validateLiveSessionInitResponse } from "../../generated/validators.ts";
import { RawClient } from "../pipeline/helpers.ts";
import { onGateway, postSession, startCluster, type Cluster } from "./harness.ts";

const LIMIT = 7;
const BURST = 50;
const URL_TTL_MS = 60_000;
const init = { model: "trantoria-1", language_config: { languages: ["en"] } };

let cluster: Cluster;
let key: string;
/** Sessions admitted at the end of the first test and never connected. */
let unused: Answer[] = [];

beforeAll(async () => {
  cluster = await startCluster({ gateways: 2, workers: 1, name: "concurrency" });
  const admin = cluster.admin();
  const account = await admin.accountsCreate.mutate({ name: "limited", plan: { maxConcurrentSessions: LIMIT } });
  key = (await admin.keysCreate.mutate({ accountId: account.id, name: "burst" })).key;
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

interface Answer {
  status: number;
  body: any;
  requestId: string | null;
  gateway: number;
}

/** `count` parallel POST /v2/live alternating between the gateways. */
async function burst(count: number): Promise<Answer[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const gateway = i % cluster.gateways.length;
      const res = await postSession(cluster.gateways[gateway]!, init, key);
      return { status: res.status, body: await res.json(), requestId: res.headers.get("x-request-id"), gateway };
    }),
  );
}

/** Checks a burst's answers: `admitted` 201s with init responses, the rest 429s with the spec's error body. */
function expectAdmitted(answers: Answer[], admitted: number): Answer[] {
  expect(answers.map((a) => a.status).sort()).toEqual([...Array(admitted).fill(201), ...Array(answers.length - admitted).fill(429)]);
  for (const a of answers) {
    if (a.status === 201) {
      expect(validateLiveSessionInitResponse(a.body)).toBe(true);
      continue;
    }
    expect(validateErrorResponse(a.body)).toBe(true);
    expect(a.body.statusCode).toBe(429);
    expect(a.body.path).toBe("/v2/live");
    expect(a.body.message.length).toBeGreaterThan(0);
    expect(a.body.request_id).toMatch(/^G-[0-9a-f]{8}$/);
    expect(a.body.request_id).toBe(a.requestId);
    expect(Number.isNaN(Date.parse(a.body.timestamp))).toBe(false);
  }
  // both gateways refused some: the limit is the account's, not a gateway's
  expect(new Set(answers.filter((a) => a.status === 429).map((a) => a.gateway)).size).toBe(cluster.gateways.length);
  return answers.filter((a) => a.status === 201);
}

describe("concurrent-session limit across gateways", () => {
  test(`${BURST} parallel POSTs over both gateways: exactly ${LIMIT} admitted, the rest 429; ending sessions frees their slots`, async () => {
    const admitted = expectAdmitted(await burst(BURST), LIMIT);

    // At the limit, either gateway keeps refusing.
    for (const g of cluster.gateways) expect((await postSession(g, init, key)).status).toBe(429);

    // End every admitted session: connect (to the other gateway than the one that created it, for
    // half of them) and stop at once.
    await Promise.all(
      admitted.map(async (a, i) => {
        const url = i % 2 === 0 ? a.body.url : onGateway(a.body.url, cluster.gateways[(a.gateway + 1) % cluster.gateways.length]!);
        const c = new RawClient(url);
        await c.opened;
        c.stop();
        const closed = await Promise.race([c.closed, Bun.sleep(30_000).then(() => ({ code: -1, reason: "no close within 30 s" }))]);
        expect(closed.code).toBe(1000);
      }),
    );

    // The slots are free again, on both gateways together.
    unused = expectAdmitted(await burst(BURST), LIMIT);
  }, 90_000);

  test("unused URLs expire after 60 s and free their slots; an expired URL is refused with 4401", async () => {
    // The sessions admitted at the end of the previous test are still unused: the account is full.
    expect(unused).toHaveLength(LIMIT);
    const burstDone = Date.now();
    for (const g of cluster.gateways) expect((await postSession(g, init, key)).status).toBe(429);

    // Every admitted session was created before `burstDone`, so all have expired 60 s after it.
    await Bun.sleep(burstDone + URL_TTL_MS + 1_500 - Date.now());
    expectAdmitted(await burst(BURST), LIMIT);

    // An expired URL is refused, on the gateway that created it and on the other one.
    for (const [i, a] of unused.slice(0, 2).entries()) {
      const url = i === 0 ? a.body.url : onGateway(a.body.url, cluster.gateways[(a.gateway + 1) % cluster.gateways.length]!);
      const c = new RawClient(url);
      const closed = await Promise.race([c.closed, Bun.sleep(15_000).then(() => ({ code: -1, reason: "no close within 15 s" }))]);
      expect(closed.code).toBe(4401);
    }
  }, 100_000);
});
