
interface AudioChunkMessageData {
  'chunk': string;
}
export { AudioChunkMessageData };