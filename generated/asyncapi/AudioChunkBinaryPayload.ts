
type AudioChunkBinaryPayload = string;
export { AudioChunkBinaryPayload };