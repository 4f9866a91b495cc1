
interface EndSessionMessage {
  'session_id': string;
  'created_at': string;
  'type': 'end_session';
  'additionalProperties'?: Record<string, any>;
}
export { EndSessionMessage };