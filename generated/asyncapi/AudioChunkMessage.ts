import {AnonymousSchema_2} from './AnonymousSchema_2';
interface AudioChunkMessage {
  'type': 'audio_chunk';
  'data': AnonymousSchema_2;
}
export { AudioChunkMessage };