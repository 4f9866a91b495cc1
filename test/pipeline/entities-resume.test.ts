/**
 * Entity numbers continue across a restart: a session tagging entities is persisted by a process
 * that stops mid-stream and resumed by a new process on the same DATA_DIR; an entity met after the
 * restart gets the next number of its type (not 1 again), the one met before keeps its own, and the
 * stored result holds the entities of both processes. Real recognition (whisper-tiny.en) of
 * synthesized speech, real sockets.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join16k } from "../helpers/addon-models.ts";
import type { TestService } from "../helpers/server.ts";
import { spoken } from "../helpers/speech.ts";
import { chunks, createSession, ResumingClient, startPipelineService, toPcm16, type Msg } from "./helpers.ts";

setDefaultTimeout(120_000);

let svc: TestService;
beforeAll(async () => {
  svc = await startPipelineService();
});
afterAll(() => svc.stop());

async function until(cond: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await Bun.sleep(20);
  }
}

/** `label:text` → id of every entity tagged in `messages` (a resumed client may get a message twice). */
function ids(messages: Msg[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of messages.filter((x) => x.type === "named_entity_recognition" && x.data)) {
    for (const e of m.data.results as { label: string; text: string; id: number }[]) out[`${e.label}:${e.text.toLowerCase()}`] = e.id;
  }
  return out;
}

describe("entity ids after a resume on another process", () => {
  test("names met after the restart continue the numbering; one met before keeps its number; the result holds both", async () => {
    const init = { model: "trantoria-1", language_config: { languages: ["en"] }, named_entity_recognition: { entities: ["name"] }, messages_config: { receive_acknowledgments: true } };
    const before = chunks(toPcm16(join16k(0.5, spoken("My name is John Smith.", "en-us", 120), 1.5)), 3200);
    const after = chunks(toPcm16(join16k(spoken("I work with Sarah Connor.", "en-us", 120), 1.5, spoken("John Smith says hello.", "en-us", 120), 1.5)), 3200);

    const first = await startPipelineService({ dataDir: svc.dataDir, clock: svc.clock });
    const s = await createSession(first, init);
    const c = new ResumingClient(s.url);
    await c.connect();
    for (const f of before) c.send(f);
    await until(() => c.messages.some((m) => m.type === "named_entity_recognition"));
    await first.stop();
    await until(() => c.closes.length > 0);
    expect(c.closes[0]).toBe(1012);
    const second = await startPipelineService({ dataDir: svc.dataDir, clock: svc.clock, env: { PORT: String(first.running.port) } });
    try {
      for (const f of after) c.send(f);
      await c.connect();
      c.stop();
      await c.done;
      const got = ids(c.messages);
      expect(got["name:john smith"]).toBe(1);
      expect(got["name:sarah connor"]).toBe(2);
      const record = (await second.running.deps.store.getSessionById(s.id))!;
      expect(record.status).toBe("done");
      const stored = (record.result as { named_entity_recognition: { results: { label: string; text: string; id: number }[] } }).named_entity_recognition.results;
      expect(stored.map((e) => `${e.text.toLowerCase()}=${e.id}`)).toEqual(["john smith=1", "sarah connor=2", "john smith=1"]);
    } finally {
      await second.stop();
    }
  });
});
