import {MessageError} from './MessageError';
import {TranslationMessageData} from './TranslationMessageData';
interface TranslationMessage {
  'session_id': string;
  'created_at': string;
  'type': 'translation';
  'error': MessageError | null;
  'data': TranslationMessageData | null;
  'additionalProperties'?: Record<string, any>;
}
export { TranslationMessage };