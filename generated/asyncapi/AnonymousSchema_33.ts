import {Utterance} from './Utterance';
import {NamedEntity} from './NamedEntity';
interface AnonymousSchema_33 {
  'utterance_id': string;
  'utterance': Utterance;
  'results': NamedEntity[];
  'additionalProperties'?: Record<string, any>;
}
export { AnonymousSchema_33 };