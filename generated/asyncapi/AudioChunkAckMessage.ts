import {AnonymousSchema_85} from './AnonymousSchema_85';
interface AudioChunkAckMessage {
  'session_id': string;
  'created_at': string;
  'type': 'audio_chunk';
  'acknowledged': boolean;
  'error'?: any;
  'data': AnonymousSchema_85;
}
export { AudioChunkAckMessage };