import {Utterance} from './Utterance';
import {NamedEntity} from './NamedEntity';
interface NamedEntityRecognitionMessageData {
  'utterance_id': string;
  'utterance': Utterance;
  'results': NamedEntity[];
  'additionalProperties'?: Record<string, any>;
}
export { NamedEntityRecognitionMessageData };