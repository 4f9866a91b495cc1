import {AddonError} from './AddonError';
interface TranscriptionResultNamedEntityRecognition {
  'success': boolean;
  'is_empty': boolean;
  'exec_time': number;
  'error': AddonError | null;
  'additionalProperties'?: Record<string, any>;
}
export { TranscriptionResultNamedEntityRecognition };