import {EndRecordingMessageData} from './EndRecordingMessageData';
interface EndRecordingMessage {
  'session_id': string;
  'created_at': string;
  'type': 'end_recording';
  'data': EndRecordingMessageData;
  'additionalProperties'?: Record<string, any>;
}
export { EndRecordingMessage };