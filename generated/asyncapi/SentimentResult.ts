
interface SentimentResult {
  'sentiment': string;
  'emotion': string;
  'text': string;
  'start': number;
  'end': number;
  'channel': number;
  'additionalProperties'?: Record<string, any>;
}
export { SentimentResult };