/** Model catalogue: entries, public models, installed-state and capabilities. */
export * from "./types.ts";
export * from "./entries.ts";
export * from "./capabilities.ts";
export * from "./languages.ts";
