import {EndOfTurnMessageDataReason} from './EndOfTurnMessageDataReason';
interface EndOfTurnMessageData {
  'channel': number;
  'probability': number | null;
  'reason': EndOfTurnMessageDataReason | null;
  'end': number | null;
  'speech_duration': number | null;
  'additionalProperties'?: Record<string, any>;
}
export { EndOfTurnMessageData };