/**
 * The baseline socket: a bare Bun WebSocket server that receives the same frames as the service and
 * does nothing with them (it counts bytes and closes on `stop_recording`). Prints `ready <port>`.
 */
let bytes = 0;
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req, srv) {
    if (srv.upgrade(req)) return undefined;
    return new Response("ok");
  },
  websocket: {
    message(ws, data) {
      if (typeof data === "string") {
        if (data.includes("stop_recording")) ws.close(1000, "done");
      } else bytes += data.byteLength;
    },
  },
});
console.log(`ready ${server.port}`);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
void bytes;
