/**
 * The file a Whisper conversion adds for word times by cross-attention alignment (written by
 * scripts/models/convert_ct2_whisper.py, read by `alignment.ts`); the catalogue looks for it to
 * say which models time words themselves (`words_accurate_timestamps` in the capabilities).
 */
export const ALIGNMENT_FILE = "decoder_alignment.onnx";
