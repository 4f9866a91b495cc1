/**
 * Reads `metadata_props` of an ONNX ModelProto by walking the top-level protobuf fields and
 * skipping the graph, so large models are not decoded just to read a few strings.
 */
import protobuf from "protobufjs/minimal.js";

const METADATA_PROPS_FIELD = 14;

/** Key/value metadata of an ONNX model (empty when there is none). Throws on malformed bytes. */
export function readOnnxMetadata(bytes: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === METADATA_PROPS_FIELD && wire === 2) {
      const entry = protobuf.Reader.create(reader.bytes());
      let key = "";
      let value = "";
      while (entry.pos < entry.len) {
        const t = entry.uint32();
        if (t >>> 3 === 1 && (t & 7) === 2) key = entry.string();
        else if (t >>> 3 === 2 && (t & 7) === 2) value = entry.string();
        else entry.skipType(t & 7);
      }
      out[key] = value;
    } else {
      reader.skipType(wire);
    }
  }
  return out;
}
