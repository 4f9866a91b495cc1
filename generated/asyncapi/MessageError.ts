
interface MessageError {
  'message': string;
  'additionalProperties'?: Record<string, any>;
}
export { MessageError };