import {AddonError} from './AddonError';
import {NamedEntity} from './NamedEntity';
interface TranscriptionResultNamedEntityRecognition {
  'success': boolean;
  'is_empty': boolean;
  'exec_time': number;
  'error': AddonError | null;
  'results': NamedEntity[] | null;
  'additionalProperties'?: Record<string, any>;
}
export { TranscriptionResultNamedEntityRecognition };