/** The opaque `next` cursor of the session list: the (created_at, id) of the last item of a page. */
export interface Cursor {
  createdAt: number;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.createdAt, c.id])).toString("base64url");
}

export function decodeCursor(s: string): Cursor | null {
  try {
    const v = JSON.parse(Buffer.from(s, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 2 && Number.isInteger(v[0]) && typeof v[1] === "string") return { createdAt: v[0], id: v[1] };
  } catch {
    // fall through
  }
  return null;
}
