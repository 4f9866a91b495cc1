import {PiiMessageData} from './PiiMessageData';
interface PiiMessage {
  'session_id': string;
  'created_at': string;
  'type': 'pii';
  'data': PiiMessageData;
  'additionalProperties'?: Record<string, any>;
}
export { PiiMessage };