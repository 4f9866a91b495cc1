import {StopRecordingAckMessage} from './StopRecordingAckMessage';
interface CallbackStopRecordingAck {
  'id': string;
  'event': 'live.stop_recording';
  'payload': StopRecordingAckMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackStopRecordingAck };