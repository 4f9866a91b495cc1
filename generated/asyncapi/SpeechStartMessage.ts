import {SpeechEventData} from './SpeechEventData';
interface SpeechStartMessage {
  'session_id': string;
  'created_at': string;
  'type': 'speech_start';
  'data': SpeechEventData;
  'additionalProperties'?: Record<string, any>;
}
export { SpeechStartMessage };