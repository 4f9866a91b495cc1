
interface EndRecordingMessageData {
  'recording_duration': number;
  'additionalProperties'?: Record<string, any>;
}
export { EndRecordingMessageData };