import {Word} from './Word';
interface Utterance {
  'start': number;
  'end': number;
  'confidence': number;
  'channel': number;
  'speaker'?: number;
  'words': Word[];
  'text': string;
  'language': string;
  'additionalProperties'?: Record<string, any>;
}
export { Utterance };