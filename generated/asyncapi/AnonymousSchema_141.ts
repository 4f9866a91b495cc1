import {AddonError} from './AddonError';
interface AnonymousSchema_141 {
  'success': boolean;
  'is_empty': boolean;
  'exec_time': number;
  'error': AddonError | null;
  'results': string | null;
  'additionalProperties'?: Record<string, any>;
}
export { AnonymousSchema_141 };