import {SpeechEventData} from './SpeechEventData';
interface SpeechEndMessage {
  'session_id': string;
  'created_at': string;
  'type': 'speech_end';
  'data': SpeechEventData;
  'additionalProperties'?: Record<string, any>;
}
export { SpeechEndMessage };