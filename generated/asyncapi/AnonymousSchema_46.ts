import {Utterance} from './Utterance';
import {Entity} from './Entity';
interface AnonymousSchema_46 {
  'utterance_id': string;
  'utterance': Utterance;
  'entities': Entity[];
  'additionalProperties'?: Record<string, any>;
}
export { AnonymousSchema_46 };