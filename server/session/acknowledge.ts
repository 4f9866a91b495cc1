/**
 * Acknowledgments and crash checkpoints of one session: where the ack point (transcribed audio) and
 * the replay point (final audio) stand, the next `audio_chunk` ack, sent once the checkpoint that
 * resumes at its end is stored, and what such a checkpoint holds.
 */
import type { Logger } from "../log.ts";
import type { Store } from "../store/types.ts";
import type { SessionAcks } from "./acks.ts";
import { Checkpointer, type CheckpointCapture } from "./checkpoint.ts";
import type { EnrichmentPipeline } from "./enrich.ts";
import type { MessageFactory, SessionMessage } from "./messages.ts";
import type { Outlet } from "./outlet.ts";
import type { PersistedSession } from "./persist.ts";
import type { SessionRecording } from "./recording-spool.ts";
import type { Transcriber } from "./transcriber.ts";

export interface AcknowledgeDeps {
  id: string;
  store: Store;
  log: Logger;
  now: () => number;
  acks: SessionAcks;
  recording: SessionRecording | null;
  messages: MessageFactory;
  outlet: Outlet;
  enrichment: EnrichmentPipeline;
  /** The session's transcriber (built after this module, which it calls back). */
  transcriber: () => Transcriber;
  emit(message: SessionMessage): void;
  isEnded(): boolean;
}

export class Acknowledgments {
  /** Acks are sent once the checkpoint covering them is stored. */
  readonly checkpoint: Checkpointer;

  constructor(private readonly d: AcknowledgeDeps) {
    this.checkpoint = new Checkpointer(d.store, d.id, d.log, () => this.capture(), (tailStart) => d.recording?.flush(tailStart), d.now);
  }

  /** Seconds (session time) up to which every utterance is final: the replay point of a restart. */
  transcribedSeconds(): number {
    return this.d.acks.transcribedSeconds(this.d.transcriber().openFrom());
  }

  /** Seconds (session time) up to which the audio is transcribed, finally or speculatively: the ack point. */
  ackableSeconds(): number {
    return this.d.acks.transcribedSeconds(this.d.transcriber().ackableFrom());
  }

  update(force = false): void {
    if (this.d.isEnded()) return;
    const ack = this.d.acks.next(this.ackableSeconds(), this.transcribedSeconds(), force);
    if (!ack) return;
    const message = this.d.messages.audioChunkAck(ack.byteRange, ack.timeRange);
    // Sent once the state to resume at its end is stored (or dropped if the session moves first).
    this.checkpoint.commit(() => {
      if (this.d.isEnded()) return;
      this.d.outlet.confirmUntil(ack.confirmedUntil);
      this.d.emit(message);
    });
  }

  /** The last ack of a session whose every final is recognized, once its checkpoint is stored; checkpointing stops. */
  async last(): Promise<void> {
    this.update(true);
    await this.checkpoint.idle();
    this.checkpoint.close();
  }

  /**
   * State for a restarted process, once every decode has settled. It supersedes the crash
   * checkpoint: checkpointing stops (acks not yet covered by one are not sent).
   */
  async resumeState(): Promise<PersistedSession> {
    const transcriber = this.d.transcriber();
    await transcriber.settled();
    this.checkpoint.close();
    await this.checkpoint.idle();
    const transcribed = this.transcribedSeconds();
    return { version: 1, ...this.d.acks.snapshot(transcribed), ...transcriber.snapshot(transcribed), ...this.d.outlet.pending(), enrichers: this.d.enrichment.persist() };
  }

  /** The session no longer needs its crash checkpoint (it ended, or failed). */
  async drop(): Promise<void> {
    const { writes, acks, waitMs } = this.checkpoint.stats;
    if (acks > 0) this.d.log.info("checkpoints", { writes, acks, ack_wait_ms_mean: Math.round((waitMs / acks) * 100) / 100 });
    await this.d.store.dropCheckpoint(this.d.id).catch((e) => this.d.log.error("checkpoint not dropped", { err: e }));
  }

  /** What a checkpoint stores: the state `snapshot` would give now, without waiting for anything. */
  private capture(): CheckpointCapture {
    const transcriber = this.d.transcriber();
    const transcribed = this.transcribedSeconds();
    const position = this.d.acks.position(transcribed);
    const { utterances: _u, finalIds, ...recognition } = transcriber.snapshot(transcribed);
    const utterances = transcriber.utterances;
    return {
      state: { version: 1, ...position, ...recognition, confirmedUntil: position.candidateFinalsUntil[0]!, enrichers: this.d.enrichment.persist() },
      bytesFrom: (offset) => this.d.acks.bytesFrom(offset),
      finalCount: utterances.length,
      finalsFrom: (i) => utterances.slice(i).map((utterance, k) => ({ id: finalIds?.[i + k] ?? "", utterance })),
    };
  }
}
