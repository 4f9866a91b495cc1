import {AnonymousSchema_28} from './AnonymousSchema_28';
import {AnonymousSchema_33} from './AnonymousSchema_33';
interface NamedEntityRecognitionMessage {
  'session_id': string;
  'created_at': string;
  'type': 'named_entity_recognition';
  'error': AnonymousSchema_28 | null;
  'data': AnonymousSchema_33 | null;
  'additionalProperties'?: Record<string, any>;
}
export { NamedEntityRecognitionMessage };