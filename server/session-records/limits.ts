/** Time windows of the spec's "Limits" section, in milliseconds. */
export const URL_TTL_MS = 60_000; // connect to a session's URL within 60 s of POST /v2/live
export const RESUME_WINDOW_MS = 60_000; // reconnect within 60 s after a drop
export const SILENCE_TIMEOUT_MS = 60_000; // a session with 60 s without audio stops

const runningStatuses = new Set(["queued", "processing"]);
export const isRunning = (status: string) => runningStatuses.has(status);
