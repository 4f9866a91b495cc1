/**
 * Gives every inline object or enum schema of a bundled document a stable `title`
 * (`<Parent><Member>`, e.g. `TranscriptMessageData`, `EndOfTurnMessageDataReason`; array items
 * `<Parent>Item`; compositions (`allOf`) too; `X or null` wrappers `Nullable<Parent><Member>`; inline
 * message payloads `<Message>Payload`), so that code generators in any
 * language (Modelina, openapi-python-client, …) name their models after the contract instead of
 * numbering them (`AnonymousSchema_31`). Component schemas are named by their key already; a schema
 * that has a title keeps it.
 */
type Json = Record<string, unknown>;

const pascal = (s: string) => s.replace(/(^|[_\-\s])([a-zA-Z0-9])/g, (_m, _u, c: string) => c.toUpperCase());
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function visit(schema: unknown, name: string, named: boolean, always = false): void {
  if (!isObject(schema) || "$ref" in schema) return;
  const nameable = always || schema.type === "object" || "properties" in schema || "enum" in schema || "allOf" in schema;
  if (named && nameable && schema.title === undefined) schema.title = name;
  const props = isObject(schema.properties) ? schema.properties : {};
  for (const [member, child] of Object.entries(props)) visit(child, name + pascal(member), true);
  if (schema.items) visit(schema.items, `${name}Item`, true);
  for (const key of ["oneOf", "anyOf", "allOf"]) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    // `X or null`: the wrapper is `Nullable<Name>` (Go and Java make it a type of its own), X keeps `<Name>`.
    const nullable = key !== "allOf" && branches.length === 2 && branches.some((b) => isObject(b) && b.type === "null");
    if (named && nullable && schema.title === undefined) schema.title = `Nullable${name}`;
    const objects = branches.filter((b) => isObject(b) && (b.type === "object" || "properties" in b));
    branches.forEach((b, i) => visit(b, objects.length > 1 ? `${name}Variant${i + 1}` : name, true));
  }
}

export function titleInlineSchemas(doc: Json): void {
  const components = isObject(doc.components) ? doc.components : {};
  for (const [name, schema] of Object.entries(isObject(components.schemas) ? components.schemas : {})) visit(schema, name, false);
  for (const [key, message] of Object.entries(isObject(components.messages) ? components.messages : {})) {
    if (isObject(message) && isObject(message.payload)) visit(message.payload, `${pascal(key)}Payload`, true, true);
  }
}
