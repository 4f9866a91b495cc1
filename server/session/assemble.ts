/**
 * Building a session's parts from its stored record: the audio format, message builders, the
 * enrichment stage, the front end, acks (and the bytes a restored session replays), the recording
 * spool, the outlet, intake, acknowledgments with their checkpoints, and the transcriber. The parts
 * call back into the session through `SessionHooks`.
 */
import { join } from "node:path";
import type { InferenceCoordinator } from "../../workers/contract/types.ts";
import { createAudioFrontend, type AudioFrontend, type AudioFrontendOptions } from "../audio/frontend.ts";
import type { AudioFormat } from "../audio/format.ts";
import type { Clock } from "../clock.ts";
import type { CallbackDispatcher } from "../delivery/callbacks.ts";
import { createEnrichers } from "../enrich/session.ts";
import type { Logger } from "../log.ts";
import type { Account, SessionRecord, Store } from "../store/types.ts";
import { speechThresholds } from "../vad/endpointer.ts";
import { Acknowledgments } from "./acknowledge.ts";
import { SessionAcks } from "./acks.ts";
import { EnrichmentPipeline, type EnrichContext, type EnricherFactory } from "./enrich.ts";
import { Intake } from "./intake.ts";
import { MessageFactory, type SessionMessage } from "./messages.ts";
import { Outlet } from "./outlet.ts";
import type { PersistedSession } from "./persist.ts";
import { createSessionRecording, type SessionRecording } from "./recording-spool.ts";
import { streamingProfile } from "./profiles.ts";
import { Transcriber } from "./transcriber.ts";

/** The voice activity detector the front end runs (loaded once by the composition root). */
export type Vad = AudioFrontendOptions["vad"];

export interface LiveSessionDeps {
  store: Store;
  clock: Clock;
  coordinator: InferenceCoordinator;
  log: Logger;
  recordingsDir: string;
  vad: Vad;
  callbacks: CallbackDispatcher | null;
  /** The enrichment stage's add-ons for a session (default: `createEnrichers`). */
  enrichers?: EnricherFactory;
  /** Called once, when the session has ended. */
  onEnded?: (sessionId: string) => void;
}

/** What the parts call back into the session for. */
export interface SessionHooks {
  /** Delivers a message (filtered by the session's flags). */
  emit(message: SessionMessage): void;
  /** Sends an `error` message; the session goes on. */
  error(message: string, code: string): void;
  isEnded(): boolean;
}

export interface SessionParts {
  format: AudioFormat;
  messages: MessageFactory;
  log: Logger;
  enrichment: EnrichmentPipeline;
  frontend: AudioFrontend;
  acks: SessionAcks;
  /** The bytes a restored session processes again first. */
  replay: Uint8Array | null;
  recording: SessionRecording | null;
  outlet: Outlet;
  intake: Intake;
  acknowledgments: Acknowledgments;
  transcriber: Transcriber;
}

/** Builds the parts of the session of a stored record; throws on an unusable audio format. */
export async function assembleSession(
  deps: LiveSessionDeps,
  record: SessionRecord,
  account: Account,
  restored: PersistedSession | undefined,
  hooks: SessionHooks,
): Promise<SessionParts> {
  const options = record.appliedOptions;
  const format: AudioFormat = {
    encoding: options.encoding,
    bitDepth: options.bit_depth,
    sampleRate: options.sample_rate,
    channels: options.channels,
  };
  const messages = new MessageFactory(record.id, () => deps.clock.now());
  const log = deps.log.child({ session_id: record.id });
  const ctx: EnrichContext = {
    sessionId: record.id,
    options,
    requested: record.requestedOptions,
    coordinator: deps.coordinator,
    messages,
    log,
    emit: (m) => hooks.emit(m),
    ...(restored?.enrichers ? { restored: restored.enrichers } : {}),
  };
  const enrichment = new EnrichmentPipeline(await (deps.enrichers ?? createEnrichers)(options, ctx), log);
  let acks: SessionAcks | undefined;
  const frontend = await createAudioFrontend({
    format,
    vad: deps.vad,
    endpointer: {
      endpointing: options.endpointing,
      maxDurationWithoutEndpointing: options.maximum_duration_without_endpointing,
      partialIntervalMs: options.messages_config.receive_partial_transcripts || options.callback ? streamingProfile(options.profile).partialIntervalMs : 0,
      partialOnPause: true,
      ...speechThresholds(options.pre_processing?.speech_threshold),
    },
    onAudio: enrichment.wantsAudio ? (c, samples, time) => enrichment.audio(c, samples, acks!.frontendBase.seconds + time) : undefined,
  });
  const created = SessionAcks.create(format, frontend, (m) => deps.log.warn("ack ledger", { session_id: record.id, detail: m }), restored);
  acks = created.acks;
  const recording = record.recordAudio
    ? createSessionRecording(format, join(deps.recordingsDir, `${record.id}.flac`), restored ? { resume: restored } : {})
    : null;
  const outlet = new Outlet({
    sessionId: record.id,
    options,
    callbackSecret: account.callbackSecret,
    callbacks: deps.callbacks,
    isOpen: () => !hooks.isEnded(),
  });
  const intake = new Intake(acks, recording, format, account.plan.maxSessionDurationS);
  let transcriber: Transcriber | undefined;
  const acknowledgments = new Acknowledgments({
    id: record.id,
    store: deps.store,
    log,
    now: () => deps.clock.now(),
    acks,
    recording,
    messages,
    outlet,
    enrichment,
    transcriber: () => transcriber!,
    emit: (m) => hooks.emit(m),
    isEnded: () => hooks.isEnded(),
  });
  transcriber = new Transcriber(
    {
      id: record.id,
      options,
      coordinator: deps.coordinator,
      log,
      messages,
      enrichment,
      emit: (m) => hooks.emit(m),
      wants: (flag) => outlet.wants(flag),
      error: (message, code) => hooks.error(message, code),
      isEnded: () => hooks.isEnded(),
      transcribed: () => acknowledgments.update(),
      cut: (channel, index, time) => frontend.cut(channel, index, time - acks!.frontendBase.seconds),
    },
    format.channels,
    restored,
  );
  return { format, messages, log, enrichment, frontend, acks, replay: created.replay, recording, outlet, intake, acknowledgments, transcriber };
}
