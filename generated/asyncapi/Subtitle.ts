import {AnonymousSchema_116} from './AnonymousSchema_116';
interface Subtitle {
  'format': AnonymousSchema_116;
  'subtitles': string;
  'additionalProperties'?: Record<string, any>;
}
export { Subtitle };