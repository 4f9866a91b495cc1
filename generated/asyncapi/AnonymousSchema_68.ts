import {AnonymousSchema_71} from './AnonymousSchema_71';
interface AnonymousSchema_68 {
  'channel': number;
  'probability': number | null;
  'reason': AnonymousSchema_71;
  'end': number | null;
  'speech_duration': number | null;
  'additionalProperties'?: Record<string, any>;
}
export { AnonymousSchema_68 };