import {SpeechStartMessage} from './SpeechStartMessage';
interface CallbackSpeechStart {
  'id': string;
  'event': 'live.speech_start';
  'payload': SpeechStartMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackSpeechStart };