import {Utterance} from './Utterance';
import {SentimentResult} from './SentimentResult';
interface SentimentAnalysisMessageData {
  'utterance_id': string;
  'utterance': Utterance;
  'results': SentimentResult[];
  'additionalProperties'?: Record<string, any>;
}
export { SentimentAnalysisMessageData };