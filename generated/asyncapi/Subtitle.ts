import {SubtitleFormat} from './SubtitleFormat';
interface Subtitle {
  'format': SubtitleFormat;
  'subtitles': string;
  'additionalProperties'?: Record<string, any>;
}
export { Subtitle };