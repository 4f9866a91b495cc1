import {TranscriptMessageData} from './TranscriptMessageData';
interface TranscriptMessage {
  'session_id': string;
  'created_at': string;
  'type': 'transcript';
  'data': TranscriptMessageData;
  'additionalProperties'?: Record<string, any>;
}
export { TranscriptMessage };