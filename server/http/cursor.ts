/**
 * The `next` cursor of the session list: the (created_at, seq) of the last item of a page, written
 * `<created_at ms>.<seq>`. Its form is the contract's `pattern` for the `cursor` parameter (so a
 * malformed one is refused by the schema); any cursor of that form pages on from the position it names.
 */
export interface Cursor {
  createdAt: number;
  seq: number;
}

const FORM = /^([0-9]{1,15})\.([0-9]{1,15})$/;

export function encodeCursor(c: Cursor): string {
  return `${c.createdAt}.${c.seq}`;
}

export function decodeCursor(s: string): Cursor | null {
  const m = FORM.exec(s);
  return m ? { createdAt: Number(m[1]), seq: Number(m[2]) } : null;
}
