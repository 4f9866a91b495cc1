import {AnonymousSchema_98} from './AnonymousSchema_98';
interface EndRecordingMessage {
  'session_id': string;
  'created_at': string;
  'type': 'end_recording';
  'data': AnonymousSchema_98;
  'additionalProperties'?: Record<string, any>;
}
export { EndRecordingMessage };