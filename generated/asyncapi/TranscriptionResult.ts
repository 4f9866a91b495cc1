import {TranscriptionMetadata} from './TranscriptionMetadata';
import {Transcription} from './Transcription';
import {TranscriptionResultTranslation} from './TranscriptionResultTranslation';
import {TranscriptionResultNamedEntityRecognition} from './TranscriptionResultNamedEntityRecognition';
import {TranscriptionResultSentimentAnalysis} from './TranscriptionResultSentimentAnalysis';
interface TranscriptionResult {
  'metadata': TranscriptionMetadata;
  'transcription'?: Transcription;
  'translation'?: TranscriptionResultTranslation;
  'named_entity_recognition'?: TranscriptionResultNamedEntityRecognition;
  'sentiment_analysis'?: TranscriptionResultSentimentAnalysis;
  'additionalProperties'?: Record<string, any>;
}
export { TranscriptionResult };