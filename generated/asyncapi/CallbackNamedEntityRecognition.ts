import {NamedEntityRecognitionMessage} from './NamedEntityRecognitionMessage';
interface CallbackNamedEntityRecognition {
  'id': string;
  'event': 'live.named_entity_recognition';
  'payload': NamedEntityRecognitionMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackNamedEntityRecognition };