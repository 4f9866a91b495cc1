
interface NamedEntity {
  'label'?: string | null;
  'id'?: number | null;
  'action'?: string | null;
  'score'?: number | null;
  'text': string | null;
  'start': number | null;
  'end': number | null;
  'entity_type': string;
  'additionalProperties'?: Record<string, any>;
}
export { NamedEntity };