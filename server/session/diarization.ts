/**
 * The `diarization` add-on: each final utterance gets the zero-based `speaker` that the session's
 * speaker labelling assigns its audio (voice prints clustered online, speakers numbered in order of
 * appearance and shared by the session's channels; `diarization_config` caps their number). The
 * labelling is built by the composition root, which holds the speaker-embedding model.
 */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import type { Enricher, Enrichment, UtteranceRef } from "./enrich.ts";

export interface SpeakerLabeller {
  label(audio: Float32Array): Promise<number>;
}

export class DiarizationEnricher implements Enricher {
  readonly name = "diarization";

  constructor(private readonly speakers: SpeakerLabeller) {}

  async onFinal(utterance: Utterance, ref: UtteranceRef): Promise<Enrichment | void> {
    if (!ref.audio || ref.audio.length === 0) return;
    return { utterance: { ...utterance, speaker: await this.speakers.label(ref.audio) } };
  }
}
