
interface SpeechEventData {
  'time': number;
  'channel': number;
  'additionalProperties'?: Record<string, any>;
}
export { SpeechEventData };