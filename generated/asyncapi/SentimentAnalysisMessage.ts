import {MessageError} from './MessageError';
import {SentimentAnalysisMessageData} from './SentimentAnalysisMessageData';
interface SentimentAnalysisMessage {
  'session_id': string;
  'created_at': string;
  'type': 'sentiment_analysis';
  'error': MessageError | null;
  'data': SentimentAnalysisMessageData | null;
  'additionalProperties'?: Record<string, any>;
}
export { SentimentAnalysisMessage };