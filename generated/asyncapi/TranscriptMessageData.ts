import {Utterance} from './Utterance';
interface TranscriptMessageData {
  'id': string;
  'is_final': boolean;
  'utterance': Utterance;
  'additionalProperties'?: Record<string, any>;
}
export { TranscriptMessageData };