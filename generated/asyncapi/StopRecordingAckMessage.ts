import {MessageError} from './MessageError';
import {StopRecordingAckMessageData} from './StopRecordingAckMessageData';
interface StopRecordingAckMessage {
  'session_id': string;
  'created_at': string;
  'type': 'stop_recording';
  'acknowledged': boolean;
  'error': MessageError | null;
  'data': StopRecordingAckMessageData | null;
  'additionalProperties'?: Record<string, any>;
}
export { StopRecordingAckMessage };