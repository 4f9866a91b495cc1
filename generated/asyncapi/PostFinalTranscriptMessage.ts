import {TranscriptionResult} from './TranscriptionResult';
interface PostFinalTranscriptMessage {
  'session_id': string;
  'created_at': string;
  'type': 'post_final_transcript';
  'data': TranscriptionResult;
  'additionalProperties'?: Record<string, any>;
}
export { PostFinalTranscriptMessage };