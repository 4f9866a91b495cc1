import {StartRecordingMessage} from './StartRecordingMessage';
interface CallbackStartRecording {
  'id': string;
  'event': 'live.start_recording';
  'payload': StartRecordingMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackStartRecording };