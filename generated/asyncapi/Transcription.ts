import {Sentence} from './Sentence';
import {Subtitle} from './Subtitle';
import {Utterance} from './Utterance';
interface Transcription {
  'full_transcript': string;
  'languages': string[];
  'sentences'?: Sentence[];
  'subtitles'?: Subtitle[];
  'utterances': Utterance[];
  'additionalProperties'?: Record<string, any>;
}
export { Transcription };