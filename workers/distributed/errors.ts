/** Errors of distributed mode that callers may want to tell apart. */

/** The job was given up (dead-lettered) or a worker reported it cannot be run. */
export class InferenceFailedError extends Error {
  readonly code = "inference_failed";
}

/** No result arrived within the job timeout. */
export class InferenceTimeoutError extends Error {
  readonly code = "inference_timeout";
}
