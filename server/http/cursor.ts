/** The opaque `next` cursor of the session list: the (created_at, id) of the last item of a page. */
export interface Cursor {
  createdAt: number;
  seq: number;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.createdAt, c.seq])).toString("base64url");
}

export function decodeCursor(s: string): Cursor | null {
  try {
    const v = JSON.parse(Buffer.from(s, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 2 && Number.isInteger(v[0]) && Number.isInteger(v[1])) return { createdAt: v[0], seq: v[1] };
  } catch {
    // fall through
  }
  return null;
}
