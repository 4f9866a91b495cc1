import {EndOfTurnScoreMessageData} from './EndOfTurnScoreMessageData';
interface EndOfTurnScoreMessage {
  'session_id': string;
  'created_at': string;
  'type': 'end_of_turn_score';
  'data': EndOfTurnScoreMessageData;
  'additionalProperties'?: Record<string, any>;
}
export { EndOfTurnScoreMessage };