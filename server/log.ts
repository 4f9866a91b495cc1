/** The service's root logger (see common/log.ts for the one logger type). */
import { createLogger } from "../common/log.ts";

export { createLogger, type Logger, type LogLevel } from "../common/log.ts";

export const log = createLogger({ service: "live-stt" });
