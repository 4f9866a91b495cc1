/**
 * The `diarization` add-on: each final utterance gets a voice print from the speaker encoder and the
 * zero-based `speaker` that the session's online clustering assigns it (speakers numbered in order
 * of appearance, shared by all channels of the session), honouring `diarization_config`
 * (`number_of_speakers` caps the speakers at that number, else `max_speakers`).
 */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { DEFAULT_SPEAKER_THRESHOLD, OnlineSpeakerClustering, type SpeakerEncoder } from "../../workers/engines/speaker/index.ts";

export interface DiarizationConfig {
  number_of_speakers?: number | null;
  max_speakers?: number | null;
}

export class DiarizationEnricher {
  readonly name = "diarization";
  private readonly clustering: OnlineSpeakerClustering;

  constructor(
    private readonly encoder: SpeakerEncoder,
    config: DiarizationConfig | null | undefined,
  ) {
    this.clustering = new OnlineSpeakerClustering({
      threshold: DEFAULT_SPEAKER_THRESHOLD,
      numberOfSpeakers: config?.number_of_speakers ?? null,
      maxSpeakers: config?.max_speakers ?? null,
    });
  }

  /** The utterance with its speaker; `audio` is its 16 kHz audio. Call in the order utterances end. */
  async onFinal(utterance: Utterance, audio: Float32Array): Promise<Utterance> {
    if (audio.length === 0) return utterance;
    const print = await this.encoder.embed(audio);
    return { ...utterance, speaker: this.clustering.assign(print, audio.length / 16000) };
  }
}
