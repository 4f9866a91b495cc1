
interface AnonymousSchema_98 {
  'recording_duration': number;
  'additionalProperties'?: Record<string, any>;
}
export { AnonymousSchema_98 };