import {EndSessionMessage} from './EndSessionMessage';
interface CallbackEndSession {
  'id': string;
  'event': 'live.end_session';
  'payload': EndSessionMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackEndSession };