import {TranscriptMessage} from './TranscriptMessage';
interface CallbackTranscript {
  'id': string;
  'event': 'live.transcript';
  'payload': TranscriptMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackTranscript };