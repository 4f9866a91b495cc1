import {StartSessionMessage} from './StartSessionMessage';
interface CallbackStartSession {
  'id': string;
  'event': 'live.start_session';
  'payload': StartSessionMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackStartSession };