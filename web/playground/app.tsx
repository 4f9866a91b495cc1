/** The playground page: key and session options, microphone or file, and the live results. */
import { render } from "preact";
import { useEffect, useReducer, useRef, useState } from "preact/hooks";
import type { LiveSessionInit, ServerMessage } from "../../generated/openapi/types.gen.ts";
import { audioFile, microphone, type AudioSource } from "./audio.ts";
import { connect, createSession, type LiveSession } from "./session.ts";
import { apply, initialState, type PlaygroundState, type TimelineItem } from "./state.ts";

const DEFAULT_OPTIONS = `{
  "model": "solaria-1",
  "language_config": { "languages": ["en"] },
  "messages_config": { "receive_lifecycle_events": true },
  "realtime_processing": { "named_entity_recognition": false }
}`;

type Phase = "idle" | "starting" | "streaming" | "finishing" | "done" | "failed";

type Action = { kind: "reset" } | { kind: "message"; message: ServerMessage; at: number };

function reducer(state: PlaygroundState, action: Action): PlaygroundState {
  return action.kind === "reset" ? initialState() : apply(state, action.message, action.at);
}

const stored = (name: string, fallback: string) => localStorage.getItem(`live-stt.${name}`) ?? fallback;
const seconds = (s: number | null) => (s === null ? "–" : `${s.toFixed(2)} s`);

function App() {
  const [key, setKey] = useState(() => stored("key", ""));
  const [options, setOptions] = useState(() => stored("options", DEFAULT_OPTIONS));
  const [phase, setPhase] = useState<Phase>("idle");
  const [problem, setProblem] = useState<string | null>(null);
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [sentMs, setSentMs] = useState(0);
  const [closeInfo, setCloseInfo] = useState<string | null>(null);
  const [state, dispatch] = useReducer(reducer, undefined, initialState);
  const running = useRef<{ source: AudioSource; session: LiveSession } | null>(null);
  const started = useRef(0);

  useEffect(() => localStorage.setItem("live-stt.key", key), [key]);
  useEffect(() => localStorage.setItem("live-stt.options", options), [options]);

  async function start(open: () => Promise<AudioSource>) {
    setProblem(null);
    setCloseInfo(null);
    setSentMs(0);
    setSessionId(null);
    dispatch({ kind: "reset" });
    setPhase("starting");
    let source: AudioSource | null = null;
    try {
      const parsed = JSON.parse(options) as LiveSessionInit;
      source = await open();
      const init: LiveSessionInit = { ...parsed, encoding: "wav/pcm", bit_depth: 16, sample_rate: source.rate as LiveSessionInit["sample_rate"], channels: 1 };
      const created = await createSession(key, init);
      setSessionId(created.id);
      started.current = performance.now();
      const session = await connect(created, {
        onMessage: (message) => dispatch({ kind: "message", message, at: performance.now() - started.current }),
        onClose: (code, reason) => {
          running.current?.source.stop();
          running.current = null;
          setCloseInfo(`${code}${reason ? ` ${reason}` : ""}`);
          setPhase(code === 1000 ? "done" : "failed");
        },
      });
      running.current = { source, session };
      const rate = source.rate;
      let bytes = 0;
      source.start(
        (pcm) => {
          session.send(pcm);
          bytes += pcm.byteLength;
          setSentMs(Math.round((bytes / 2 / rate) * 1000));
        },
        () => {
          session.stop();
          setPhase((p) => (p === "streaming" ? "finishing" : p));
        },
      );
      setPhase("streaming");
    } catch (e) {
      source?.stop();
      setProblem(e instanceof Error ? e.message : String(e));
      setPhase("failed");
    }
  }

  const stop = () => running.current?.source.stop();
  const busy = phase === "starting" || phase === "streaming" || phase === "finishing";
  const utterances = state.timeline.filter((i) => i.kind === "utterance");

  return (
    <main>
      <header>
        <h1>live-stt playground</h1>
        <nav>
          <a href="/docs">HTTP API</a>
          <a href="/docs/websocket/">WebSocket API</a>
        </nav>
      </header>

      <section class="controls">
        <label>
          API key <small>(sent as <code>x-service-key</code>)</small>
          <input id="api-key" type="password" autocomplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="your API key" />
        </label>
        <label>
          Session options <small>(body of <code>POST /v2/live</code>; the audio format is set by the page)</small>
          <textarea id="options" rows={8} spellcheck={false} value={options} onInput={(e) => setOptions(e.currentTarget.value)} />
        </label>
        <div class="buttons">
          <button id="mic" disabled={busy} onClick={() => start(() => microphone("/playground/worklet.js"))}>
            Start microphone
          </button>
          <label class={`file ${busy ? "disabled" : ""}`}>
            Stream a file…
            <input
              id="file"
              type="file"
              accept="audio/*"
              disabled={busy}
              onChange={(e) => {
                const file = e.currentTarget.files?.[0];
                e.currentTarget.value = "";
                if (file) void start(() => audioFile(file));
              }}
            />
          </label>
          <button id="stop" disabled={phase !== "streaming"} onClick={stop}>
            Stop
          </button>
        </div>
      </section>

      <section class="status" id="status" data-phase={phase}>
        <span class={`phase ${phase}`}>{phase}</span>
        {sessionId && <span>session <code>{sessionId}</code></span>}
        <span>sent {(sentMs / 1000).toFixed(1)} s</span>
        <span id="acks">
          acknowledged {(state.acked.ms / 1000).toFixed(1)} s ({state.acked.count} acks){state.stopAcknowledged ? " · stop acknowledged" : ""}
        </span>
        {closeInfo && <span>closed {closeInfo}</span>}
        {problem && <span class="problem" id="problem">{problem}</span>}
      </section>

      <div class="panels">
        <section class="transcript">
          <h2>Transcript</h2>
          <ol id="timeline">
            {state.timeline.map((item, i) => (
              <Item key={i} item={item} />
            ))}
          </ol>
          {state.partial && state.partial.text && (
            <p class="partial" id="partial">
              {state.partial.text}
            </p>
          )}
          {state.timeline.length === 0 && !state.partial && <p class="empty">Finals, partials, speech and end-of-turn markers appear here.</p>}
        </section>
        <aside>
          <section>
            <h2>Entities and redactions</h2>
            <ul id="entities">
              {utterances.flatMap((u) =>
                u.kind === "utterance"
                  ? u.entities.map((e, j) => (
                      <li key={`${u.id}-${j}`}>
                        <span class="tag">{e.label ?? "entity"}</span> {e.text ?? "(masked)"} <small>{e.action ?? ""}</small>
                      </li>
                    ))
                  : [],
              )}
            </ul>
          </section>
          <section>
            <h2>Session events</h2>
            <p id="lifecycle">{state.lifecycle.join(" → ") || "–"}</p>
            {state.errors.length > 0 && (
              <ul class="errors">
                {state.errors.map((e, i) => (
                  <li key={i}>{e}</li>
                ))}
              </ul>
            )}
          </section>
          <section>
            <details>
              <summary>Messages ({state.log.length})</summary>
              <ol class="log">
                {[...state.log].reverse().map((m, i) => (
                  <li key={i} title={m.text}>
                    <span class="at">{(m.at / 1000).toFixed(2)}</span> <b>{m.type}</b> <code>{m.text.slice(0, 160)}</code>
                  </li>
                ))}
              </ol>
            </details>
          </section>
        </aside>
      </div>
    </main>
  );
}

function Item({ item }: { item: TimelineItem }) {
  if (item.kind === "marker") {
    const label = { speech_start: "speech start", speech_end: "speech end", end_of_turn: "end of turn" }[item.type];
    return (
      <li class={`marker ${item.type}`}>
        <span>{label}</span> <small>{seconds(item.time)}{item.detail ? ` · ${item.detail}` : ""}</small>
      </li>
    );
  }
  const u = item.utterance;
  return (
    <li class="final" data-utterance={item.id}>
      <small class="times">
        {seconds(u.start)} – {seconds(u.end)} · {u.language}
        {item.sentiment ? ` · ${item.sentiment}` : ""}
      </small>
      <span class="text">{item.redacted ?? u.text}</span>
      {item.redacted !== undefined && <small class="redacted">redacted</small>}
      {item.translations.map((t, i) => (
        <small key={i} class="translation">
          {t}
        </small>
      ))}
    </li>
  );
}

render(<App />, document.getElementById("app")!);
