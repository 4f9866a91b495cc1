import {AnonymousSchema_75} from './AnonymousSchema_75';
interface EndOfTurnScoreMessage {
  'session_id': string;
  'created_at': string;
  'type': 'end_of_turn_score';
  'data': AnonymousSchema_75;
  'additionalProperties'?: Record<string, any>;
}
export { EndOfTurnScoreMessage };