import {AudioChunkAckMessage} from './AudioChunkAckMessage';
interface CallbackAudioChunkAck {
  'id': string;
  'event': 'live.audio_chunk';
  'payload': AudioChunkAckMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackAudioChunkAck };