/**
 * Nesting limit for JSON text, checked before `JSON.parse`: deeply nested documents would otherwise
 * reach recursive code (schema validation, `JSON.stringify` in the stores) and overflow the stack or
 * block the event loop. One linear pass without recursion.
 */

/** Deepest nesting of objects and arrays accepted in a request body or a JSON query parameter. */
export const MAX_JSON_DEPTH = 64;

/** The first nesting depth above `max` reached by `text` (objects and arrays), or null when within it. */
export function jsonDepthExceeded(text: string, max = MAX_JSON_DEPTH): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return depth;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return null;
}
