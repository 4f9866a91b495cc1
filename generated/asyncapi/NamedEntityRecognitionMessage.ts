import {MessageError} from './MessageError';
import {NamedEntityRecognitionMessageData} from './NamedEntityRecognitionMessageData';
interface NamedEntityRecognitionMessage {
  'session_id': string;
  'created_at': string;
  'type': 'named_entity_recognition';
  'error': MessageError | null;
  'data': NamedEntityRecognitionMessageData | null;
  'additionalProperties'?: Record<string, any>;
}
export { NamedEntityRecognitionMessage };