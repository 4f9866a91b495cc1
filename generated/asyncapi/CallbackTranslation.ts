import {TranslationMessage} from './TranslationMessage';
interface CallbackTranslation {
  'id': string;
  'event': 'live.translation';
  'payload': TranslationMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackTranslation };