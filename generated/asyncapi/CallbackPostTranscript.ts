import {PostTranscriptMessage} from './PostTranscriptMessage';
interface CallbackPostTranscript {
  'id': string;
  'event': 'live.post_transcript';
  'payload': PostTranscriptMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackPostTranscript };