import {AnonymousSchema_28} from './AnonymousSchema_28';
import {AnonymousSchema_52} from './AnonymousSchema_52';
interface SentimentAnalysisMessage {
  'session_id': string;
  'created_at': string;
  'type': 'sentiment_analysis';
  'error': AnonymousSchema_28 | null;
  'data': AnonymousSchema_52 | null;
  'additionalProperties'?: Record<string, any>;
}
export { SentimentAnalysisMessage };