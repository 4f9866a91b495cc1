import {EndOfTurnMessageData} from './EndOfTurnMessageData';
interface EndOfTurnMessage {
  'session_id': string;
  'created_at': string;
  'type': 'end_of_turn';
  'data': EndOfTurnMessageData;
  'additionalProperties'?: Record<string, any>;
}
export { EndOfTurnMessage };