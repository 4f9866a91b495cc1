/** `bun run start`: the service, configured from the environment (see README). */
import { StartupError } from "./config.ts";
import { log } from "./log.ts";
import { startServer, type RunningServer } from "./server.ts";

let running: RunningServer;
try {
  running = await startServer({ print: (line) => console.log(line) });
} catch (e) {
  if (!(e instanceof StartupError)) throw e;
  console.error(`live-stt: cannot start: ${e.message}`);
  process.exit(1);
}

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    log.info("draining", { signal });
    try {
      await running.stop();
    } finally {
      process.exit(0);
    }
  });
}
