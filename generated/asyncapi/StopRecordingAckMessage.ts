import {AnonymousSchema_28} from './AnonymousSchema_28';
import {AnonymousSchema_94} from './AnonymousSchema_94';
interface StopRecordingAckMessage {
  'session_id': string;
  'created_at': string;
  'type': 'stop_recording';
  'acknowledged': boolean;
  'error': AnonymousSchema_28 | null;
  'data': AnonymousSchema_94 | null;
  'additionalProperties'?: Record<string, any>;
}
export { StopRecordingAckMessage };