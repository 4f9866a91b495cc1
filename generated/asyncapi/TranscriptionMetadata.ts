
interface TranscriptionMetadata {
  'audio_duration': number;
  'number_of_distinct_channels': number;
  'billing_time': number;
  'transcription_time': number;
  'additionalProperties'?: Record<string, any>;
}
export { TranscriptionMetadata };