/** Minimal structured logging for distributed-mode components (one JSON object per line). */
export type LogFn = (level: "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void;

/** Writes JSON lines to stdout (warnings and errors to stderr). */
export const jsonLog: LogFn = (level, msg, fields) => {
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }) + "\n";
  (level === "info" ? process.stdout : process.stderr).write(line);
};

export const silentLog: LogFn = () => {};
