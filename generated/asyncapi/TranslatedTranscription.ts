import {AddonError} from './AddonError';
import {Utterance} from './Utterance';
interface TranslatedTranscription {
  'error': AddonError | null;
  'full_transcript': string;
  'languages': string[];
  'utterances': Utterance[];
  'additionalProperties'?: Record<string, any>;
}
export { TranslatedTranscription };