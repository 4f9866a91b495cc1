
interface EndOfTurnScoreMessageData {
  'channel': number;
  'probability': number;
  'threshold': number;
  'silence_ms': number;
  'time': number;
  'ended': boolean;
  'additionalProperties'?: Record<string, any>;
}
export { EndOfTurnScoreMessageData };