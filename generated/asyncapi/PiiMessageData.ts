import {Utterance} from './Utterance';
import {Entity} from './Entity';
interface PiiMessageData {
  'utterance_id': string;
  'utterance': Utterance;
  'entities': Entity[];
  'additionalProperties'?: Record<string, any>;
}
export { PiiMessageData };