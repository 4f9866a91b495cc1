/**
 * The load generator: live sessions that stream the benchmark audio in 100 ms frames, at real time or
 * as fast as the socket takes it, and time what comes back (finals, acknowledgments).
 */
export interface StreamResult {
  /** Seconds from the audio's end of each final utterance to its arrival (real-time streams). */
  finalLatencyS: number[];
  /** Seconds from the end of each final utterance to the first ack covering it (which may come before the final). */
  ackBeyondS: number[];
  /** Seconds from the arrival of each final to the first ack covering its utterance (negative: the ack came first). */
  ackAfterFinalS: number[];
  /**
   * Real-time streams: seconds from the sending of each frame to the arrival of the first ack
   * covering its audio (how long the client keeps it for a resend), frames never acknowledged left out.
   */
  ackLagS: number[];
  finals: { start: number; end: number; text: string }[];
  closeCode: number;
}

export interface Target {
  /** HTTP base of the service, or null for the bare socket (`wsUrl` then). */
  base: string | null;
  wsUrl?: string;
  key?: string;
  model: string;
  /** More members of the init body (e.g. `profile`). */
  init?: Record<string, unknown>;
}

async function openSocket(t: Target): Promise<string> {
  if (!t.base) return t.wsUrl!;
  const res = await fetch(`${t.base}/v2/live`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-key": t.key! },
    body: JSON.stringify({ model: t.model, language_config: { languages: ["en"] }, ...t.init }),
  });
  if (res.status !== 201) throw new Error(`POST /v2/live answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { url: string }).url;
}

/** One session streaming `frames` (100 ms each); `realtime` paces them, otherwise they go at once. */
export async function runStream(t: Target, frames: Uint8Array[], realtime: boolean, frameMs = 100, drainMs = 60_000): Promise<StreamResult> {
  const url = await openSocket(t);
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  const result: StreamResult = { finalLatencyS: [], ackBeyondS: [], ackAfterFinalS: [], ackLagS: [], finals: [], closeCode: 0 };
  const pendingAcks: { end: number; finalAt: number }[] = []; // finals waiting for an ack covering them
  /** Acks received so far: the end (s) each covers and its arrival (an ack may come before the final it covers). */
  const acks: { end: number; at: number }[] = [];
  let t0 = 0;
  /** Frames sent so far, and how many of them an ack has covered (real time). */
  let sent = 0;
  let lagged = 0;
  /**
   * Wall-clock second at which the audio at stream time `s` was "spoken" (real time: frame i, the
   * audio from i to i + 1 frame lengths, leaves once it has been spoken, so this counts the client's
   * framing too, as a live source would see it).
   */
  const sentAt = (s: number) => t0 + s;
  const ackCovers = (ackEnd: number, end: number) => end <= ackEnd + 1e-3;
  const recordAck = (end: number, finalAt: number, ackAt: number) => {
    if (realtime) result.ackBeyondS.push(ackAt - sentAt(end));
    result.ackAfterFinalS.push(ackAt - finalAt);
  };
  ws.addEventListener("message", (e) => {
    const now = performance.now() / 1000;
    const m = JSON.parse(String(e.data)) as { type: string; data?: any };
    if (m.type === "transcript" && m.data?.is_final) {
      const u = m.data.utterance as { start: number; end: number; text: string };
      result.finals.push({ start: u.start, end: u.end, text: u.text });
      if (realtime) result.finalLatencyS.push(now - sentAt(u.end));
      const earlier = acks.find((a) => ackCovers(a.end, u.end));
      if (earlier) recordAck(u.end, now, earlier.at);
      else pendingAcks.push({ end: u.end, finalAt: now });
    } else if (m.type === "audio_chunk" && m.data?.time_range) {
      const ackedS = m.data.time_range[1] / 1000;
      acks.push({ end: ackedS, at: now });
      if (realtime) for (; lagged < sent && ackCovers(ackedS, ((lagged + 1) * frameMs) / 1000); lagged++) result.ackLagS.push(now - sentAt(((lagged + 1) * frameMs) / 1000));
      while (pendingAcks.length > 0 && ackCovers(ackedS, pendingAcks[0]!.end)) {
        const { end, finalAt } = pendingAcks.shift()!;
        recordAck(end, finalAt, now);
      }
    }
  });
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error("socket error")), { once: true });
  });
  t0 = performance.now() / 1000;
  for (let i = 0; i < frames.length; i++) {
    if (realtime) {
      const due = t0 + ((i + 1) * frameMs) / 1000; // a frame leaves once its audio has been "spoken"
      const wait = due * 1000 - performance.now();
      if (wait > 0) await Bun.sleep(wait);
    }
    ws.send(frames[i]!);
    sent = i + 1;
  }
  ws.send(JSON.stringify({ type: "stop_recording" }));
  // A service that cannot keep up is not waited for past `drainMs`: the stream counts as incomplete.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(-1), drainMs)));
  result.closeCode = await Promise.race([closed, gaveUp]);
  clearTimeout(timer);
  if (result.closeCode === -1) ws.close();
  return result;
}

/** `n` concurrent streams, started `staggerMs` apart so their frames do not all land together. */
export async function runStreams(t: Target, n: number, frames: Uint8Array[], realtime: boolean, staggerMs = 37, drainMs = 60_000): Promise<StreamResult[]> {
  const runs: Promise<StreamResult>[] = [];
  for (let i = 0; i < n; i++) {
    runs.push(runStream(t, frames, realtime, 100, drainMs));
    if (staggerMs > 0 && i < n - 1) await Bun.sleep(staggerMs % 100);
  }
  return Promise.all(runs);
}

/** Opens `n` sessions that send nothing; returns a function that stops them all and waits for the closes. */
export async function openIdle(t: Target, n: number): Promise<() => Promise<void>> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < n; i++) {
    const ws = new WebSocket(await openSocket(t));
    await new Promise<void>((resolve) => ws.addEventListener("open", () => resolve(), { once: true }));
    sockets.push(ws);
  }
  return async () => {
    await Promise.all(
      sockets.map((ws) => {
        const closed = new Promise<void>((r) => ws.addEventListener("close", () => r(), { once: true }));
        ws.send(JSON.stringify({ type: "stop_recording" }));
        return closed;
      }),
    );
  };
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
