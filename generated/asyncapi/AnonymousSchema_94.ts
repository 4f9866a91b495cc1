
interface AnonymousSchema_94 {
  'recording_duration': number;
  'recording_left_to_process': number;
  'additionalProperties'?: Record<string, any>;
}
export { AnonymousSchema_94 };