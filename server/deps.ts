/** What the HTTP layer and the real-time gateway share: configuration, store, clock, inference, logging. */
import type { InferenceCoordinator } from "../workers/contract/types.ts";
import type { Admission } from "./capacity/admission.ts";
import type { Readiness } from "./health/readiness.ts";
import type { SessionDirectory } from "./cluster/directory.ts";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import type { Store } from "./store/types.ts";

export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  coordinator: InferenceCoordinator;
  /** Which gateway holds each live session (one gateway embedded; shared through Redis otherwise). */
  directory: SessionDirectory;
  log: Logger;
  /** Where FLAC recordings are written (`DATA_DIR/recordings`). */
  recordingsDir: string;
  /** What the start still waits for (`GET /health/ready`); absent: ready. */
  readiness?: Readiness;
  /** Capacity-aware admission of new sessions (`server/capacity/`); absent: every session is admitted. */
  admission?: Admission;
}
