import {SentimentAnalysisMessage} from './SentimentAnalysisMessage';
interface CallbackSentimentAnalysis {
  'id': string;
  'event': 'live.sentiment_analysis';
  'payload': SentimentAnalysisMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackSentimentAnalysis };