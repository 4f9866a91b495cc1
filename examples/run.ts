/**
 * Runs every example against a live service and checks that each prints a real transcript.
 *
 *   bun examples/run.ts            # starts the service (MODELS_DIR, default ./models as bootstrap fills it) on a free port
 *   LIVE_STT_URL=… LIVE_STT_KEY=… bun examples/run.ts     # uses a service already running
 *
 * The clip is jfk.wav from ../shared/audio; each example must print "ask not what your country".
 * That needs a Whisper model serving solaria-1 (bootstrap installs one): `MODELS_DIR=… bun run models -- pull whisper-base`.
 * The Python examples need `examples/setup.sh` first. Exit status 1 when any example fails.
 * EXAMPLES_MODEL, EXAMPLES_CLIP and EXAMPLES_EXPECT (a case-insensitive phrase) try other models and clips.
 */
import { mkdtempSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dir, "..");
const shared = path.resolve(root, "../shared");
const audio = path.join(shared, "audio");
const venvPython = path.join(process.env.LIVE_STT_CACHE ?? path.join(process.env.HOME ?? "/root", ".cache/live-stt"), "venv-examples/bin/python");
const model = process.env.EXAMPLES_MODEL ?? "solaria-1";
const clip = process.env.EXAMPLES_CLIP ?? path.join(audio, "jfk.wav");
const expected = process.env.EXAMPLES_EXPECT ?? "ask not what your country";

interface Example {
  name: string;
  command: string[];
  needs?: () => string | null;
}

const python = () => (existsSync(venvPython) ? null : `no Python environment at ${venvPython}: run examples/setup.sh`);
const ffmpeg = () => (Bun.which("ffmpeg") ? null : "ffmpeg is not installed (apt-get install ffmpeg)");

const examples: Example[] = [
  { name: "raw-websocket", command: ["bun", "examples/raw-websocket/client.ts", clip] },
  // ffmpeg converts the 44.1 kHz stereo 24-bit FLAC of the same speech (unless another clip is asked for).
  { name: "ffmpeg", command: ["bash", "examples/ffmpeg/stream.sh", process.env.EXAMPLES_CLIP ?? path.join(audio, "jfk.flac")], needs: ffmpeg },
  { name: "typescript-sdk", command: ["bun", "examples/typescript-sdk/transcribe.ts", clip] },
  { name: "python-sdk", command: [venvPython, "examples/python-sdk/transcribe.py", clip], needs: python },
  { name: "pipecat", command: [venvPython, "examples/pipecat/pipeline.py", clip], needs: python },
];

async function freePort(): Promise<number> {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  await server.stop(true);
  return port;
}

async function startService(): Promise<{ url: string; key: string; stop: () => void }> {
  const port = await freePort();
  const key = `examples-${crypto.randomUUID()}`;
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn(["bun", "server/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: url,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "live-stt-examples-")),
      MODELS_DIR: path.resolve(root, process.env.MODELS_DIR ?? path.join(root, "models")),
      BOOTSTRAP_API_KEY: key,
      LOG_LEVEL: "error",
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  for (let i = 0; i < 150; i++) {
    if (proc.exitCode !== null) throw new Error(`the service exited with ${proc.exitCode}`);
    const up = await fetch(`${url}/health`).then((r) => r.ok).catch(() => false);
    if (up) return { url, key, stop: () => proc.kill("SIGTERM") };
    await Bun.sleep(200);
  }
  proc.kill();
  throw new Error("the service did not answer /health within 30 s");
}

async function requireModel(url: string, key: string): Promise<void> {
  const response = await fetch(`${url}/v2/live/capabilities`, { headers: { "x-service-key": key } });
  if (!response.ok) throw new Error(`GET /v2/live/capabilities: ${response.status}`);
  const { models } = (await response.json()) as { models: { model: string }[] };
  if (models.some((m) => m.model === model)) return;
  const hint = model.startsWith("solaria") ? "; install a Whisper model with `MODELS_DIR=… bun run models -- pull whisper-base`" : "";
  throw new Error(`the service does not serve ${model} (it serves: ${models.map((m) => m.model).join(", ") || "nothing"})${hint}`);
}

const normalize = (text: string) => text.toLowerCase().replace(/[^a-z0-9' ]+/g, " ").replace(/\s+/g, " ");

async function run(example: Example, url: string, key: string): Promise<{ ok: boolean; seconds: number; detail: string }> {
  const missing = example.needs?.();
  if (missing) return { ok: false, seconds: 0, detail: missing };
  const started = performance.now();
  const proc = Bun.spawn(example.command, {
    cwd: root,
    env: { ...process.env, LIVE_STT_URL: url, LIVE_STT_KEY: key, LIVE_STT_MODEL: model, LIVE_STT_LANGUAGE: "en" },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 120_000,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const seconds = (performance.now() - started) / 1000;
  const transcript = stdout.trim().split("\n").map((l) => l.replace(/^\[[^\]]*\]\s*/, "")).join(" ");
  const ok = code === 0 && normalize(transcript).includes(normalize(expected));
  const detail = ok ? transcript : `exit ${code}; stdout: ${stdout.trim().slice(-400) || "(empty)"}; stderr: ${stderr.trim().slice(-600)}`;
  return { ok, seconds, detail };
}

const external = process.env.LIVE_STT_URL && process.env.LIVE_STT_KEY;
const service = external ? { url: process.env.LIVE_STT_URL!, key: process.env.LIVE_STT_KEY!, stop: () => {} } : await startService();
let failures = 0;
try {
  await requireModel(service.url, service.key);
  console.log(`examples against ${service.url}, model ${model}, clip ${path.basename(clip)}, expecting "${expected}"`);
  for (const example of examples) {
    const result = await run(example, service.url, service.key);
    if (!result.ok) failures++;
    console.log(`${result.ok ? "ok  " : "FAIL"} ${example.name.padEnd(15)} ${result.seconds.toFixed(1).padStart(5)} s  ${result.detail}`);
  }
} catch (e) {
  failures++;
  console.error(`examples: ${e instanceof Error ? e.message : e}`);
} finally {
  service.stop();
}
process.exit(failures === 0 ? 0 : 1);
