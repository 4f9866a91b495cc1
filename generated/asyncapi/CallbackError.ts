import {ErrorMessage} from './ErrorMessage';
interface CallbackError {
  'id': string;
  'event': 'live.error';
  'payload': ErrorMessage;
  'additionalProperties'?: Record<string, any>;
}
export { CallbackError };