import {AnonymousSchema_28} from './AnonymousSchema_28';
import {AnonymousSchema_64} from './AnonymousSchema_64';
interface TranslationMessage {
  'session_id': string;
  'created_at': string;
  'type': 'translation';
  'error': AnonymousSchema_28 | null;
  'data': AnonymousSchema_64 | null;
  'additionalProperties'?: Record<string, any>;
}
export { TranslationMessage };