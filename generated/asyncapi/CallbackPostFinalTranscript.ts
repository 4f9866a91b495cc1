import {PostFinalTranscriptMessage} from './PostFinalTranscriptMessage';
interface CallbackPostFinalTranscript {
  'id': string;
  'event': 'live.post_final_transcript';
  'payload': PostFinalTranscriptMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackPostFinalTranscript };