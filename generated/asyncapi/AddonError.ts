
interface AddonError {
  'status_code': number;
  'exception': string;
  'message': string;
  'additionalProperties'?: Record<string, any>;
}
export { AddonError };