/**
 * Options the contract accepts in shape but this service does not run: a member marked `x-refused`
 * in contracts/schemas (values it refuses, and why). An init body setting one of those values is
 * refused with a 400 line naming the member. (Options the specification has accepted and ignored
 * are marked `x-ignored` instead: `ignored.ts`.)
 */
import type { LiveSessionInit } from "../../generated/openapi/types.gen.ts";
import { markedOptions, setMarked, valueAt, type MarkedOption } from "./marked.ts";

export type RefusedOption = MarkedOption;

/** Every member of the init body marked `x-refused` in the contract. */
export const refusedOptions: readonly RefusedOption[] = markedOptions("x-refused");

/** One 400 line per refused value the init body sets: `<path>: <value> is not offered: <reason>`. */
export function refusedErrors(init: LiveSessionInit): string[] {
  return setMarked(refusedOptions, init).map(({ path, reason }) => `${path.join(".")}: ${JSON.stringify(valueAt(init, path))} is not offered: ${reason}`);
}
