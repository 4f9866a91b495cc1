import {AnonymousSchema_68} from './AnonymousSchema_68';
interface EndOfTurnMessage {
  'session_id': string;
  'created_at': string;
  'type': 'end_of_turn';
  'data': AnonymousSchema_68;
  'additionalProperties'?: Record<string, any>;
}
export { EndOfTurnMessage };