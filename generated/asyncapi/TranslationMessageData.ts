import {Utterance} from './Utterance';
import {TranslationLanguageCode} from './TranslationLanguageCode';
interface TranslationMessageData {
  'utterance_id': string;
  'utterance': Utterance;
  'original_language': string;
  'target_language': TranslationLanguageCode;
  'translated_utterance': Utterance;
  'additionalProperties'?: Record<string, any>;
}
export { TranslationMessageData };