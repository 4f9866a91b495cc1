
interface StartRecordingMessage {
  'session_id': string;
  'created_at': string;
  'type': 'start_recording';
  'additionalProperties'?: Record<string, any>;
}
export { StartRecordingMessage };