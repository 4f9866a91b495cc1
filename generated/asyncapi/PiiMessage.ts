import {AnonymousSchema_46} from './AnonymousSchema_46';
interface PiiMessage {
  'session_id': string;
  'created_at': string;
  'type': 'pii';
  'data': AnonymousSchema_46;
  'additionalProperties'?: Record<string, any>;
}
export { PiiMessage };