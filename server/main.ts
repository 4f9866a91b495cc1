/** `bun run start`: the service, configured from the environment (see README). */
import { log } from "./log.ts";
import { startServer } from "./server.ts";

const running = await startServer({ print: (line) => console.log(line) });

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
