
interface AnonymousSchema_28 {
  'message': string;
  'additionalProperties'?: Record<string, any>;
}
export { AnonymousSchema_28 };