import {TranscriptionMetadata} from './TranscriptionMetadata';
import {Transcription} from './Transcription';
import {AnonymousSchema_124} from './AnonymousSchema_124';
import {AnonymousSchema_138} from './AnonymousSchema_138';
import {AnonymousSchema_141} from './AnonymousSchema_141';
interface TranscriptionResult {
  'metadata': TranscriptionMetadata;
  'transcription'?: Transcription;
  'translation'?: AnonymousSchema_124;
  'named_entity_recognition'?: AnonymousSchema_138;
  'sentiment_analysis'?: AnonymousSchema_141;
  'additionalProperties'?: Record<string, any>;
}
export { TranscriptionResult };