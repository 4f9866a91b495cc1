/** Converters that turn a file taken from a wheel into the file the service loads (by name, from the catalogue). */
import { convertResemblyzer } from "./resemblyzer.ts";

export type ConverterName = "resemblyzer-onnx";

/** Each converter reads the extracted member at `input` and returns the bytes to install. */
export const CONVERTERS: Record<ConverterName, (input: string) => Uint8Array> = {
  "resemblyzer-onnx": (input) => convertResemblyzer(input),
};
