import {EndRecordingMessage} from './EndRecordingMessage';
interface CallbackEndRecording {
  'id': string;
  'event': 'live.end_recording';
  'payload': EndRecordingMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackEndRecording };