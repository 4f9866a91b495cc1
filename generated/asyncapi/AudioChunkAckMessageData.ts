
interface AudioChunkAckMessageData {
  'byte_range': number[];
  'time_range': number[];
}
export { AudioChunkAckMessageData };