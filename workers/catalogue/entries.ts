/**
 * The catalogue: engine entries with their files on public model hubs, and the public models
 * (`solaria-3`, `solaria-1`, `trantoria-1`) with their candidate entries in order of preference.
 *
 * Files whose SHA-256 could be established are pinned; the others carry `sha256: null` and are
 * only pulled with `--allow-unpinned`.
 */
import type { Feature } from "../engines/types.ts";
import { SOLARIA_1_LANGUAGES, SOLARIA_3_LANGUAGES, TRANSLATION_TARGETS, WHISPER_LANGUAGES, WHISPER_LANGUAGES_99 } from "./languages.ts";
import type { CatalogueEntry, CatalogueFile, PublicModelDefinition } from "./types.ts";

/**
 * Add-ons every public model may offer, provided downstream of the engine. The gateway narrows them
 * to those whose models it has (`server/options/offered.ts`: `end_of_turn` only with the turn model
 * installed, `diarization` only with the speaker encoder).
 */
export const PIPELINE_FEATURES: Feature[] = [
  "custom_vocabulary", "punctuation", "numerals", "named_entity_recognition", "pii",
  "end_of_turn", "number_hold", "sentiment_analysis", "diarization",
];

/** Latency profiles accepted by the service. */
export const PROFILES = ["low_latency", "balanced", "accurate"];

const HF = "https://huggingface.co";
const WHISPER_COMMIT = "c0d2f624c09dc18e709e37c2ad90c039a4eb72a2";
const MOONSHINE_COMMIT = "db88bffd14574212b6094a2e230d4f328029c31b";
const SILERO_COMMIT = "806dcba3f0b5d95282d0889a074954a2f8c6397b";

/** Whisper's tokenizer vocabulary, shared by every Whisper-family entry. */
const WHISPER_TOKENIZER: CatalogueFile = {
  path: "whisper-assets/multilingual.tiktoken",
  url: `https://raw.githubusercontent.com/openai/whisper/${WHISPER_COMMIT}/whisper/assets/multilingual.tiktoken`,
  size: 816730,
  sha256: "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126",
};

/** An onnx-community Whisper export, stored under canonical local names. */
function whisperFiles(repo: string, dir: string, variant: string): CatalogueFile[] {
  const hf = (remote: string) => `${HF}/${repo}/resolve/main/${remote}`;
  const file = (local: string, remote: string): CatalogueFile => ({ path: `${dir}/${local}`, url: hf(remote), size: null, sha256: null });
  return [
    file("config.json", "config.json"),
    file("generation_config.json", "generation_config.json"),
    file("encoder_model.onnx", `onnx/encoder_model${variant}.onnx`),
    file("decoder_model_merged.onnx", `onnx/decoder_model_merged${variant}.onnx`),
    WHISPER_TOKENIZER,
  ];
}

const ZIPFORMER_REPO = "csukuangfj/sherpa-onnx-streaming-zipformer-en-2023-06-26";
const ZIPFORMER_STEM = "epoch-99-avg-1-chunk-16-left-128";
function zipformerFile(name: string): CatalogueFile {
  return { path: `zipformer-en-streaming/${name}`, url: `${HF}/${ZIPFORMER_REPO}/resolve/main/${name}`, size: null, sha256: null };
}

function moonshineFile(name: string, size: number, sha256: string, optional = false): CatalogueFile {
  return {
    path: `moonshine-micro/${name}`,
    url: `https://github.com/moonshine-ai/moonshine/raw/${MOONSHINE_COMMIT}/micro/models/${name}`,
    size,
    sha256,
    ...(optional ? { optional } : {}),
  };
}
const MOONSHINE_META = moonshineFile("spelling_cnn_meta.json", 903, "c6162455d46f6e9502fb32db03a3e18d1fa9cbb54bd8f461d1176dbfec6362ca");
const MOONSHINE_LICENSE = moonshineFile("LICENSE.micro", 1069, "c9130682eddbdbfa2b4dbfad22c33d8ea19091a3b9259fa76356b958687dc1b1", true);

/** The Smart Turn v3.2 end-of-turn model, as bundled in the `pipecat-ai` wheel (upstream file, byte for byte). */
export const SMART_TURN_ID = "smart-turn-v3";
export const SMART_TURN_FILE = "smart-turn-v3/smart-turn-v3.2-cpu.onnx";

const SMART_TURN_ENTRY: CatalogueEntry = {
  id: SMART_TURN_ID,
  family: "turn",
  dir: "smart-turn-v3",
  files: [
    {
      path: SMART_TURN_FILE,
      url: "https://pypi.org/project/pipecat-ai/1.14.0/",
      size: 8679182,
      sha256: "2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f",
      wheel: {
        package: "pipecat-ai",
        version: "1.14.0",
        sha256: "0352f504b44e78bdf524e45af4bc759601c835b9b7dc195efe5e03384b974a44",
        member: "pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx",
      },
    },
  ],
  languages: [],
  features: ["end_of_turn"],
  translationTargets: [],
  description: "Smart Turn v3.2 end-of-turn classifier (Whisper-tiny encoder + head, int8), from the pipecat-ai wheel",
  license: "BSD-2-Clause",
};

/**
 * Resemblyzer's GE2E speaker encoder (`resemblyzer/pretrained.pt` in the Resemblyzer 0.1.4 wheel,
 * Apache-2.0), converted to ONNX at pull time without PyTorch; the ONNX output is pinned.
 */
export const SPEAKER_ID = "resemblyzer-speaker";
export const SPEAKER_FILE = "resemblyzer-speaker/speaker_encoder.onnx";

const SPEAKER_ENTRY: CatalogueEntry = {
  id: SPEAKER_ID,
  family: "speaker",
  dir: "resemblyzer-speaker",
  files: [
    {
      path: SPEAKER_FILE,
      url: "https://pypi.org/project/Resemblyzer/0.1.4/",
      size: 5696110,
      sha256: "41037315450fd37e65f1349e71c541990c72a89a434ecb5dd954bc5c1d6312da",
      wheel: {
        package: "resemblyzer",
        version: "0.1.4",
        sha256: "8f12eb2f1a9982d32e8db7856de754709b59c93a77bcf0ff536584b619a9dd1f",
        member: "resemblyzer/pretrained.pt",
        convert: "resemblyzer-onnx",
      },
    },
  ],
  languages: [],
  features: ["diarization"],
  translationTargets: [],
  description: "Resemblyzer GE2E speaker encoder (3-layer LSTM, 256-d voice prints), converted to ONNX from the Resemblyzer wheel",
  license: "Apache-2.0",
};

export const CATALOGUE: CatalogueEntry[] = [
  {
    id: "whisper-large-v3-turbo",
    family: "whisper",
    dir: "whisper-large-v3-turbo",
    files: whisperFiles("onnx-community/whisper-large-v3-turbo", "whisper-large-v3-turbo", "_quantized"),
    languages: WHISPER_LANGUAGES,
    features: [...PIPELINE_FEATURES, "language_detection", "translation"],
    translationTargets: ["en"],
    options: { nMels: 128 },
    description: "Whisper large-v3-turbo (onnx-community export, int8 weights)",
    license: "MIT",
  },
  {
    id: "whisper-base",
    family: "whisper",
    dir: "whisper-base",
    files: whisperFiles("onnx-community/whisper-base", "whisper-base", ""),
    languages: WHISPER_LANGUAGES_99,
    features: [...PIPELINE_FEATURES, "language_detection", "translation"],
    translationTargets: ["en"],
    options: { nMels: 80 },
    description: "Whisper base (onnx-community export, fp32)",
    license: "MIT",
  },
  {
    id: "zipformer-en-streaming",
    family: "transducer",
    dir: "zipformer-en-streaming",
    files: [
      zipformerFile(`encoder-${ZIPFORMER_STEM}.onnx`),
      zipformerFile(`decoder-${ZIPFORMER_STEM}.onnx`),
      zipformerFile(`joiner-${ZIPFORMER_STEM}.onnx`),
      zipformerFile("tokens.txt"),
    ],
    languages: ["en"],
    features: [...PIPELINE_FEATURES],
    translationTargets: [],
    description: "sherpa-onnx streaming Zipformer transducer, English (2023-06-26)",
    license: "Apache-2.0",
  },
  {
    id: "moonshine-micro-spelling",
    family: "isolated-token",
    dir: "moonshine-micro",
    files: [
      moonshineFile("spelling_cnn_mel.onnx", 4065219, "a42f1c9e19e1b31b8499fa20e0e9e4d6c70b80206bd9ac093e42a24893cda249"),
      MOONSHINE_META,
      MOONSHINE_LICENSE,
    ],
    languages: ["en"],
    features: [...PIPELINE_FEATURES],
    translationTargets: [],
    description: "Moonshine micro isolated-token recognizer (letters, digits, command words), fp32",
    license: "MIT",
  },
  {
    id: "moonshine-micro-spelling-int8",
    family: "isolated-token",
    dir: "moonshine-micro",
    files: [
      moonshineFile("spelling_cnn_mel.shrunk.onnx", 1310439, "c249f0305df5be98433ccddfda13cf7ddb60e1a7e3465a28d6e992508bd38681"),
      MOONSHINE_META,
      MOONSHINE_LICENSE,
    ],
    languages: ["en"],
    features: [...PIPELINE_FEATURES],
    translationTargets: [],
    options: { preferQuantized: true },
    description: "Moonshine micro isolated-token recognizer, int8 weights",
    license: "MIT",
  },
  {
    id: "silero-vad",
    family: "vad",
    dir: "silero-vad",
    files: [
      {
        path: "silero-vad/silero_vad.onnx",
        url: `https://github.com/snakers4/silero-vad/raw/${SILERO_COMMIT}/src/silero_vad/data/silero_vad.onnx`,
        size: 2327524,
        sha256: "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
      },
    ],
    languages: [],
    features: [],
    translationTargets: [],
    description: "Silero voice activity detector (used by the session pipeline; serves no public model)",
    license: "MIT",
  },
  SMART_TURN_ENTRY,
  SPEAKER_ENTRY,
];

export const PUBLIC_MODELS: PublicModelDefinition[] = [
  {
    model: "solaria-3",
    description: "multilingual with automatic language detection; the model that translates",
    profiles: PROFILES,
    languages: SOLARIA_3_LANGUAGES,
    features: [...PIPELINE_FEATURES, "translation", "language_detection"],
    translationTargets: TRANSLATION_TARGETS,
    candidates: ["whisper-large-v3-turbo"],
  },
  {
    model: "solaria-1",
    description: "multilingual, 99 languages and Cantonese, detected or set",
    profiles: PROFILES,
    languages: SOLARIA_1_LANGUAGES,
    features: [...PIPELINE_FEATURES, "language_detection"],
    translationTargets: [],
    candidates: ["whisper-large-v3-turbo", "whisper-base"],
  },
  {
    model: "trantoria-1",
    description: "lowest latency; the language spoken must be set",
    profiles: PROFILES,
    languages: null,
    features: [...PIPELINE_FEATURES],
    translationTargets: [],
    candidates: ["zipformer-en-streaming", "moonshine-micro-spelling", "moonshine-micro-spelling-int8"],
  },
];

/** The catalogue entry with this id, or undefined. */
export function catalogueEntry(id: string): CatalogueEntry | undefined {
  return CATALOGUE.find((e) => e.id === id);
}
