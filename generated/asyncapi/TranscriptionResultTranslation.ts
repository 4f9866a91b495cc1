import {AddonError} from './AddonError';
import {TranslatedTranscription} from './TranslatedTranscription';
interface TranscriptionResultTranslation {
  'success': boolean;
  'is_empty': boolean;
  'exec_time': number;
  'error': AddonError | null;
  'results': TranslatedTranscription[] | null;
  'additionalProperties'?: Record<string, any>;
}
export { TranscriptionResultTranslation };