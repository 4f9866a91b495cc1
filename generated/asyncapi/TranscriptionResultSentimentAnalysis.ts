import {AddonError} from './AddonError';
interface TranscriptionResultSentimentAnalysis {
  'success': boolean;
  'is_empty': boolean;
  'exec_time': number;
  'error': AddonError | null;
  'results': string | null;
  'additionalProperties'?: Record<string, any>;
}
export { TranscriptionResultSentimentAnalysis };