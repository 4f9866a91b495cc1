import {Transcription} from './Transcription';
interface PostTranscriptMessage {
  'session_id': string;
  'created_at': string;
  'type': 'post_transcript';
  'data': Transcription;
  'additionalProperties'?: Record<string, any>;
}
export { PostTranscriptMessage };