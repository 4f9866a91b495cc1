/**
 * The one logger type of the project: structured JSON, one object per line. The service writes every
 * level to stdout and honours LOG_LEVEL; the worker process writes warnings and errors to stderr.
 * Never awaited on the audio path.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  /** Lowest level written (default: LOG_LEVEL, read at each line; `error` under `bun test`, else `info`). */
  level?: LogLevel;
  /** Write `warn` and `error` lines to stderr instead of stdout. */
  errorsToStderr?: boolean;
}

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
/** Whether `value` names a log level (as LOG_LEVEL should). */
export const isLogLevel = (value: unknown): value is LogLevel => typeof value === "string" && Object.hasOwn(order, value);
/** LOG_LEVEL, read at each line so tests and operators can change it; quiet by default under `bun test`. */
const envThreshold = () => order[(process.env.LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "error" : "info")) as LogLevel] ?? order.info;

export function createLogger(base: Record<string, unknown> = {}, options: LoggerOptions = {}): Logger {
  const threshold = options.level ? () => order[options.level!] : envThreshold;
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (order[level] < threshold()) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...base, ...fields }, errorReplacer);
    (options.errorsToStderr && order[level] >= order.warn ? process.stderr : process.stdout).write(line + "\n");
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger({ ...base, ...fields }, options),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

/** A logger that writes nothing (library default). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silentLogger };
