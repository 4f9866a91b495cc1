import {Utterance} from './Utterance';
interface AnonymousSchema_8 {
  'id': string;
  'is_final': boolean;
  'utterance': Utterance;
  'additionalProperties'?: Record<string, any>;
}
export { AnonymousSchema_8 };