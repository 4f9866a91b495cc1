/**
 * Online speaker clustering of one session: each utterance's voice print joins the closest known
 * speaker when their cosine similarity reaches `threshold`, or starts a new speaker while fewer than
 * the allowed number exist (`diarization_config.number_of_speakers`, else `max_speakers`, else no
 * limit); past the limit it joins the closest. A speaker's centroid is the normalised sum of its
 * voice prints. Utterances shorter than `minNewSpeakerS` never start a speaker (their voice prints
 * are unreliable); they join the closest one (or start the first) without moving its centroid.
 */
import { cosine, unit } from "./encoder.ts";

export interface ClusterOptions {
  /** Cosine similarity at or above which an utterance belongs to a known speaker. */
  threshold: number;
  numberOfSpeakers?: number | null;
  maxSpeakers?: number | null;
  /** Shortest utterance (s) that may start a new speaker. */
  minNewSpeakerS?: number;
}

/** Same-speaker voice prints of the encoder score about 0.75–0.95, different speakers 0.3–0.6. */
export const DEFAULT_SPEAKER_THRESHOLD = 0.7;

export class OnlineSpeakerClustering {
  private readonly sums: Float32Array[] = [];
  private readonly centroids: Float32Array[] = [];
  private readonly limit: number;

  constructor(private readonly opts: ClusterOptions) {
    this.limit = opts.numberOfSpeakers ?? opts.maxSpeakers ?? Infinity;
  }

  get speakers(): number {
    return this.centroids.length;
  }

  /** The zero-based speaker of an utterance's voice print (unit length) lasting `seconds`. */
  assign(embedding: Float32Array, seconds: number): number {
    let best = -1;
    let bestSim = -Infinity;
    this.centroids.forEach((c, i) => {
      const s = cosine(c, embedding);
      if (s > bestSim) (best = i), (bestSim = s);
    });
    const reliable = seconds >= (this.opts.minNewSpeakerS ?? 0.5);
    const mayStart = this.centroids.length < this.limit && (best < 0 || reliable);
    const speaker = best >= 0 && (bestSim >= this.opts.threshold || !mayStart) ? best : this.centroids.length;
    if (!reliable && speaker === best) return speaker;
    if (speaker === this.centroids.length) this.sums.push(new Float32Array(embedding.length));
    const sum = this.sums[speaker]!;
    for (let k = 0; k < sum.length; k++) sum[k]! += embedding[k]!;
    this.centroids[speaker] = unit(sum);
    return speaker;
  }
}
