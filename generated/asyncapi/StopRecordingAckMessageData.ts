
interface StopRecordingAckMessageData {
  'recording_duration': number;
  'recording_left_to_process': number;
  'additionalProperties'?: Record<string, any>;
}
export { StopRecordingAckMessageData };