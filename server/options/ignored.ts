/**
 * Options the specification has accepted and ignored (summarization, chapterization,
 * `pre_processing.audio_enhancer`): members marked `x-ignored` in contracts/schemas. A body switching
 * one on is accepted (201); the session runs as without it: its applied options hold the member's
 * default, its stored request keeps what was sent, and the 201's `x-ignored-options` header names it.
 */
import type { LiveSessionInit } from "../../generated/openapi/types.gen.ts";
import { markedOptions, setMarked, type MarkedOption } from "./marked.ts";

export type IgnoredOption = MarkedOption;

/** Every member of the init body marked `x-ignored` in the contract. */
export const ignoredOptions: readonly IgnoredOption[] = markedOptions("x-ignored");

/** The response header naming the ignored members a 201 accepted. */
export const IGNORED_OPTIONS_HEADER = "x-ignored-options";

/** Paths (`a.b`) of the ignored members `init` switches on, in contract order. */
export function ignoredIn(init: LiveSessionInit): string[] {
  return setMarked(ignoredOptions, init).map((o) => o.path.join("."));
}

/** `options` with each ignored member that is switched on set back to off (every one is a boolean switch, default `false`). */
export function withoutIgnored<T extends object>(options: T): T {
  const out = structuredClone(options) as Record<string, unknown>;
  for (const { path } of setMarked(ignoredOptions, out)) {
    let o = out;
    for (const key of path.slice(0, -1)) o = o[key] as Record<string, unknown>;
    o[path[path.length - 1]!] = false;
  }
  return out as T;
}
