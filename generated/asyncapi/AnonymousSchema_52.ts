import {Utterance} from './Utterance';
import {SentimentResult} from './SentimentResult';
interface AnonymousSchema_52 {
  'utterance_id': string;
  'utterance': Utterance;
  'results': SentimentResult[];
  'additionalProperties'?: Record<string, any>;
}
export { AnonymousSchema_52 };