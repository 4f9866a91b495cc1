/**
 * No init option is silently dropped: an option the service does not run is refused at POST /v2/live
 * with a 400 naming it (only when it is switched on: its default stays accepted); the options the
 * specification has accepted and ignored (summarization, chapterization, audio enhancement) are
 * accepted, named in the 201's `x-ignored-options`, and the session runs as without them (real
 * weights, a real clip over a real socket); `pre_processing.speech_threshold` really sets how
 * strictly the session's voice-activity detection counts audio as speech (real Silero VAD).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import path from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { ignoredOptions } from "../../server/options/ignored.ts";
import { refusedOptions } from "../../server/options/refused.ts";
import { sharedAudio, type TestService } from "../helpers/server.ts";
import { chunks, createSession, finalTexts, RawClient, startPipelineService, toPcm16, type Msg } from "./helpers.ts";

setDefaultTimeout(90_000);

let svc: TestService;
beforeAll(async () => {
  svc = await startPipelineService();
});
afterAll(() => svc.stop());

const base = { model: "trantoria-1", language_config: { languages: ["en"] } };

interface Posted {
  status: number;
  headers: Headers;
  body: { id?: string; message: string; validation_errors?: string[] | null };
}

async function post(body: Record<string, unknown>): Promise<Posted> {
  const res = await fetch(`${svc.running.url}/v2/live`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-key": svc.key },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Posted["body"] };
}

async function get(route: string): Promise<unknown> {
  const res = await fetch(`${svc.running.url}${route}`, { headers: { "x-service-key": svc.key } });
  expect(res.status).toBe(200);
  return res.json();
}

/** Sets `value` at `at` in a copy of `body` (objects created on the way). */
function withValue(body: Record<string, unknown>, at: string[], value: unknown): Record<string, unknown> {
  const out = structuredClone(body);
  let o: Record<string, unknown> = out;
  for (const key of at.slice(0, -1)) o = (o[key] ??= {}) as Record<string, unknown>;
  o[at[at.length - 1]!] = value;
  return out;
}

/** What a refused member needs beside it to be otherwise valid (translation needs its switch and targets). */
function around(at: string[]): Record<string, unknown> {
  if (at[1] === "translation_config") return { ...base, model: "solaria-3", realtime_processing: { translation: true, translation_config: { target_languages: ["en"] } } };
  return base;
}

describe("options the service does not run are refused when switched on", () => {
  test("the contract marks the translation extras x-refused; the spec's accepted-and-ignored ones x-ignored", () => {
    expect(refusedOptions.map((r) => r.path.join(".")).sort()).toEqual(
      [
        "realtime_processing.translation_config.model",
        "realtime_processing.translation_config.context_adaptation",
        "realtime_processing.translation_config.informal",
      ].sort(),
    );
    expect(ignoredOptions.map((r) => [r.path.join("."), r.values])).toEqual([
      ["pre_processing.audio_enhancer", [true]],
      ["post_processing.summarization", [true]],
      ["post_processing.chapterization", [true]],
    ]);
  });

  test.each(refusedOptions.flatMap((r) => r.values.map((v) => [r.path.join("."), v] as const)))("%s: %p is a 400 naming the field and why", async (at, value) => {
    const parts = at.split(".");
    const res = await post(withValue(around(parts), parts, value));
    expect(res.status).toBe(400);
    const lines = res.body.validation_errors ?? [];
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith(`${at}: ${JSON.stringify(value)} is not offered: `);
    expect(lines[0]).toContain("this service");
  });

  test("switched off (the defaults, said out loud) they are accepted, with no x-ignored-options", async () => {
    const res = await post({
      ...base,
      pre_processing: { audio_enhancer: false },
      post_processing: { summarization: false, summarization_config: { type: "concise" }, chapterization: false },
      realtime_processing: { words_accurate_timestamps: false },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-ignored-options")).toBeNull();
  });

  test("accurate word timestamps are accepted switched on (words are aligned either way)", async () => {
    const res = await post({ ...base, realtime_processing: { words_accurate_timestamps: true } });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-ignored-options")).toBeNull();
  });

  test("several refused options give one line each", async () => {
    const res = await post({
      ...base,
      model: "solaria-3",
      realtime_processing: { translation: true, translation_config: { target_languages: ["en"], informal: true, context_adaptation: true } },
    });
    expect(res.status).toBe(400);
    expect((res.body.validation_errors ?? []).map((l) => l.slice(0, l.indexOf(":")))).toEqual(["realtime_processing.translation_config.context_adaptation", "realtime_processing.translation_config.informal"]);
  });

  test("the capabilities advertise none of them but accurate word timestamps, and the defaults show the speech threshold in force", async () => {
    const caps = (await get("/v2/live/capabilities")) as { models: { model: string; features: string[] }[] };
    const advertised = new Set(caps.models.flatMap((m) => m.features));
    for (const f of ["summarization", "chapterization", "audio_enhancer"]) expect(advertised.has(f)).toBe(false);
    // The installed Whisper model carries its alignment decoder: it times words itself.
    expect(caps.models.find((m) => m.model === "trantoria-1")?.features).toContain("words_accurate_timestamps");
    const defaults = (await get("/v2/live/defaults")) as { pre_processing?: { audio_enhancer?: boolean; speech_threshold?: number } };
    expect(defaults.pre_processing).toEqual({ audio_enhancer: false, speech_threshold: 0.5 });
  });
});

describe("summarization, chapterization and audio enhancement are accepted and ignored (the spec)", () => {
  const ignoredAll = {
    pre_processing: { audio_enhancer: true },
    post_processing: { summarization: true, summarization_config: { type: "bullet_points" }, chapterization: true },
  };

  test.each(ignoredOptions.map((o) => o.path.join(".")))("%s: true is a 201 naming it in x-ignored-options", async (at) => {
    const res = await post(withValue(base, at.split("."), true));
    expect(res.status).toBe(201);
    expect(res.headers.get("x-ignored-options")).toBe(at);
  });

  test("all three: 201, the header names each, the stored session keeps the request as sent", async () => {
    const res = await post({ ...base, ...ignoredAll });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-ignored-options")).toBe("pre_processing.audio_enhancer,post_processing.summarization,post_processing.chapterization");
    const session = (await get(`/v2/live/${res.body.id}`)) as { request_params: Record<string, unknown> };
    expect(session.request_params.post_processing).toEqual(ignoredAll.post_processing);
    expect(session.request_params.pre_processing).toEqual(ignoredAll.pre_processing);
  });

  /** Streams jfk.wav through a session created with `extra`; its messages. */
  async function stream(extra: Record<string, unknown>): Promise<Msg[]> {
    const { url } = await createSession(svc, { ...base, messages_config: { receive_partial_transcripts: false }, ...extra });
    const client = new RawClient(url);
    await client.opened;
    const samples = readWavFile(path.join(sharedAudio, "jfk.wav")).samples;
    for (const c of chunks(toPcm16(samples), 3200)) client.send(c);
    client.stop();
    expect((await client.closed).code).toBe(1000);
    return client.messages;
  }

  test("a session with all three switched on runs as one without them: same finals, no post-processing message", async () => {
    const plain = await stream({});
    const ignored = await stream(ignoredAll);
    const plainFinals = finalTexts(plain);
    expect(plainFinals.flat().join(" ")).toContain("ask not what your country can do for you");
    expect(finalTexts(ignored)).toEqual(plainFinals);
    const types = (ms: Msg[]) => [...new Set(ms.map((m) => m.type))].sort();
    expect(types(ignored)).toEqual(types(plain));
    for (const t of ["post_summarization", "post_chapterization"]) expect(types(ignored)).not.toContain(t);
  });
});

describe("pre_processing.speech_threshold sets the session's speech detection", () => {
  /** Speech under loud white noise (seeded): Silero scores most of it between 0.1 and 0.9. */
  function noisySpeech(): Float32Array {
    const speech = readWavFile(path.join(sharedAudio, "leopard_test.wav")).samples;
    let seed = 1;
    const out = new Float32Array(speech.length + 16000);
    for (let i = 0; i < out.length; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      out[i] = (i < speech.length ? speech[i]! : 0) + (seed / 2147483648 - 0.5) * 0.8;
    }
    return out;
  }

  async function speechEvents(preProcessing?: Record<string, unknown>): Promise<Msg[]> {
    const init = { ...base, messages_config: { receive_partial_transcripts: false }, ...(preProcessing ? { pre_processing: preProcessing } : {}) };
    const { url } = await createSession(svc, init);
    const client = new RawClient(url);
    await client.opened;
    for (const c of chunks(toPcm16(noisySpeech()), 3200)) client.send(c);
    client.stop();
    expect((await client.closed).code).toBe(1000);
    return client.messages.filter((m) => m.type === "speech_start" || m.type === "speech_end");
  }

  test("strict (0.9): the noisy speech is not speech; default: it is; lenient (0.05): it lasts longer", async () => {
    const strict = await speechEvents({ speech_threshold: 0.9 });
    const usual = await speechEvents();
    const lenient = await speechEvents({ speech_threshold: 0.05 });
    expect(strict).toEqual([]);
    expect(usual.map((m) => m.type)).toContain("speech_start");
    const endOf = (ms: Msg[]) => Math.max(...ms.filter((m) => m.type === "speech_end").map((m) => m.data.time as number));
    expect(endOf(lenient)).toBeGreaterThan(endOf(usual) + 1);
  });
});
