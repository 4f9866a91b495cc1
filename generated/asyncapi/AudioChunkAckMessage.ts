import {AudioChunkAckMessageData} from './AudioChunkAckMessageData';
interface AudioChunkAckMessage {
  'session_id': string;
  'created_at': string;
  'type': 'audio_chunk';
  'acknowledged': boolean;
  'error'?: any;
  'data': AudioChunkAckMessageData;
}
export { AudioChunkAckMessage };