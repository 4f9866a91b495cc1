/**
 * Real headless Chromium for the page tests: Debian's `chromium` (apt) driven by playwright-core.
 * CHROMIUM_PATH overrides the binary. Screenshots go to `tmp/pages/` (ignored by git).
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const screenshotDir = path.resolve(import.meta.dir, "../../tmp/pages");

export async function launchChromium(args: string[] = []): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`no Chromium at ${chromiumPath}: install it with \`apt-get install chromium\` (or set CHROMIUM_PATH)`);
  }
  mkdirSync(screenshotDir, { recursive: true });
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--autoplay-policy=no-user-gesture-required", ...args] });
}
