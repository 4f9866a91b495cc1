/**
 * WebSocket protocol failures close with a code and a reason (RFC 6455 §7.4.1), not by dropping the
 * connection (which a client sees as 1006): a frame over the 16 MiB read limit → 1009, a text frame
 * that is not UTF-8 → 1007, a violation of the framing → 1002. Raw frames over a real TCP socket.
 * The WebSocket framing is Bun's own (its uWebSockets layer): the codes need Bun 1.4 or later, the
 * version scripts/bootstrap.sh installs and CI runs; on Bun 1.3 these tests are skipped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { MAX_READ_FRAME_BYTES } from "../../server/gateway/frames.ts";
import type { TestService } from "../helpers/server.ts";
import { createSession, startPipelineService } from "./helpers.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startPipelineService();
});
afterAll(() => svc.stop());

/** One client frame: masked unless told otherwise; `declared` overrides the length in the header. */
function frame(opcode: number, payload: Uint8Array, opts: { mask?: boolean; rsv1?: boolean; declared?: number } = {}): Buffer {
  const mask = opts.mask ?? true;
  const length = opts.declared ?? payload.length;
  const head = [0x80 | (opts.rsv1 ? 0x40 : 0) | opcode];
  let ext = Buffer.alloc(0);
  if (length < 126) head.push((mask ? 0x80 : 0) | length);
  else if (length < 65536) {
    head.push((mask ? 0x80 : 0) | 126);
    ext = Buffer.alloc(2);
    ext.writeUInt16BE(length);
  } else {
    head.push((mask ? 0x80 : 0) | 127);
    ext = Buffer.alloc(8);
    ext.writeBigUInt64BE(BigInt(length));
  }
  const key = mask ? randomBytes(4) : Buffer.alloc(0);
  const body = Buffer.from(payload);
  if (mask) for (let i = 0; i < body.length; i++) body[i] = body[i]! ^ key[i % 4]!;
  return Buffer.concat([Buffer.from(head), ext, key, body]);
}

/** Opens the session's WebSocket over a raw socket, sends `bytes`, and returns the close frame the server sent (null: none). */
async function closeAfter(bytes: Buffer): Promise<{ code: number; reason: string } | null> {
  const { url } = await createSession(svc, { model: "trantoria-1", language_config: { languages: ["en"] } });
  const u = new URL(url);
  const socket = connect(Number(u.port), "127.0.0.1");
  await new Promise<void>((r) => socket.once("connect", () => r()));
  socket.write(
    `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  let buf = Buffer.alloc(0);
  let upgraded = false;
  let close: { code: number; reason: string } | null = null;
  const ended = new Promise<void>((resolve) => {
    socket.on("data", (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (!upgraded) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        expect(buf.subarray(0, 12).toString()).toBe("HTTP/1.1 101");
        upgraded = true;
        buf = buf.subarray(end + 4);
        // Let the session attach before the offending frame arrives.
        setTimeout(() => socket.write(bytes), 100);
      }
      while (buf.length >= 2) {
        const opcode = buf[0]! & 0x0f;
        let length = buf[1]! & 0x7f;
        let at = 2;
        if (length === 126) (length = buf.readUInt16BE(2)), (at = 4);
        else if (length === 127) (length = Number(buf.readBigUInt64BE(2))), (at = 10);
        if (buf.length < at + length) break;
        const payload = buf.subarray(at, at + length);
        if (opcode === 8) close = { code: payload.length >= 2 ? payload.readUInt16BE(0) : 1005, reason: payload.subarray(2).toString() };
        buf = buf.subarray(at + length);
      }
    });
    socket.on("close", () => resolve());
    socket.on("error", () => resolve());
  });
  await Promise.race([ended, Bun.sleep(5_000)]);
  socket.destroy();
  return close;
}

/** Bun 1.3 drops the connection on these failures without a close frame; Bun 1.4 sends the codes. */
const sendsCloseCodes = Bun.semver.satisfies(Bun.version, ">=1.4.0");

describe.skipIf(!sendsCloseCodes)("WebSocket close codes on protocol failures", () => {
  test("a frame over the 16 MiB read limit closes with 1009 and a reason", async () => {
    const close = await closeAfter(frame(2, new Uint8Array(16), { declared: MAX_READ_FRAME_BYTES + 1 }));
    expect(close?.code).toBe(1009);
    expect(close?.reason).not.toBe("");
  });

  test("a text frame that is not UTF-8 closes with 1007 and a reason", async () => {
    const close = await closeAfter(frame(1, new Uint8Array([0x7b, 0xc3, 0x28, 0x7d])));
    expect(close?.code).toBe(1007);
    expect(close?.reason).not.toBe("");
  });

  test("framing violations close with 1002 and a reason: unmasked frame, reserved opcode, RSV1 without extension, stray continuation", async () => {
    for (const bad of [frame(2, new Uint8Array(8), { mask: false }), frame(3, new Uint8Array(8)), frame(2, new Uint8Array(8), { rsv1: true }), frame(0, new Uint8Array(8))]) {
      const close = await closeAfter(bad);
      expect(close?.code).toBe(1002);
      expect(close?.reason).not.toBe("");
    }
  });
});
