
interface Word {
  'word': string;
  'start': number;
  'end': number;
  'confidence': number;
  'additionalProperties'?: Record<string, any>;
}
export { Word };