
interface StartSessionMessage {
  'session_id': string;
  'created_at': string;
  'type': 'start_session';
  'additionalProperties'?: Record<string, any>;
}
export { StartSessionMessage };