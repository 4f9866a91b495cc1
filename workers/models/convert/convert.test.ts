import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { convertResemblyzer } from "./resemblyzer.ts";

describe("resemblyzer converter", () => {
  test("a file that is not a legacy PyTorch checkpoint is refused clearly", () => {
    const dir = mkdtempSync(join(tmpdir(), "convert-"));
    const bogus = join(dir, "pretrained.pt");
    writeFileSync(bogus, new Uint8Array([0x80, 0x02, 0x4b, 0x07, 0x2e])); // pickle of the int 7
    expect(() => convertResemblyzer(bogus)).toThrow(/not a legacy PyTorch checkpoint/);
  });
});
