import {SpeechEndMessage} from './SpeechEndMessage';
interface CallbackSpeechEnd {
  'id': string;
  'event': 'live.speech_end';
  'payload': SpeechEndMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackSpeechEnd };