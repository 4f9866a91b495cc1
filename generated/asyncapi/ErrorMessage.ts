
interface ErrorMessage {
  'type': 'error';
  'session_id'?: string | null;
  'created_at'?: string;
  'error'?: any;
  'additionalProperties'?: Record<string, any>;
}
export { ErrorMessage };