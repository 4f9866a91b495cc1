/** GET /v2/live/{id}/file: the FLAC recording, whole (200) or a byte range (206). */
import { stat } from "node:fs/promises";
import { notFound } from "../errors.ts";
import type { Handler } from "../handler.ts";
import { ownSession } from "./sessions.ts";

/** Parses a single `bytes=` range against a size; null when absent, unsatisfiable or multi-range (then the whole file is sent). */
function parseRange(header: string | null, size: number): { start: number; end: number } | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null;
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return null;
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) return null;
  return { start, end };
}

export const getLiveSessionRecording: Handler<"getLiveSessionRecording"> = async (ctx) => {
  const session = await ownSession(ctx);
  if (!session.recordAudio) throw notFound("this account does not record audio");
  if (!session.recordingPath) throw notFound("no recording for this session (yet)");
  const size = await stat(session.recordingPath).then((s) => s.size, () => -1);
  if (size < 0) throw notFound("the recording is gone");
  const file = Bun.file(session.recordingPath);
  const headers = {
    "content-type": "audio/flac",
    "accept-ranges": "bytes",
    "content-disposition": `attachment; filename="${session.id}.flac"`,
  };
  const range = parseRange(ctx.request.headers.get("range"), size);
  if (!range) return new Response(file, { status: 200, headers: { ...headers, "content-length": String(size) } });
  return new Response(file.slice(range.start, range.end + 1), {
    status: 206,
    headers: { ...headers, "content-range": `bytes ${range.start}-${range.end}/${size}`, "content-length": String(range.end - range.start + 1) },
  });
};
