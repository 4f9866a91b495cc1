import {AudioChunkMessageData} from './AudioChunkMessageData';
interface AudioChunkMessage {
  'type': 'audio_chunk';
  'data': AudioChunkMessageData;
}
export { AudioChunkMessage };