import {AnonymousSchema_8} from './AnonymousSchema_8';
interface TranscriptMessage {
  'session_id': string;
  'created_at': string;
  'type': 'transcript';
  'data': AnonymousSchema_8;
  'additionalProperties'?: Record<string, any>;
}
export { TranscriptMessage };