
interface StopRecordingMessage {
  'type': 'stop_recording';
  'additionalProperties'?: Record<string, any>;
}
export { StopRecordingMessage };