/**
 * The playground at `/` in real headless Chromium against a real service: the fake microphone
 * (Chromium's file-backed capture device) and the file input each stream jfk.wav, and the page shows
 * its words as final transcripts, with speech markers and acks.
 *
 * Needs a Whisper model serving `solaria-1` in MODELS_DIR (default ./models, which bootstrap fills):
 *   MODELS_DIR=… bun run models -- pull whisper-base
 * Those two tests fail with that instruction when none is installed; the others need no model.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import type { RunningServer } from "../../server/server.ts";
import { sharedAudio } from "../helpers/server.ts";
import { launchChromium, screenshotDir } from "./browser.ts";
import { KEY, requireWhisper, startService, WHISPER_MODEL } from "./service.ts";

const CLIP = path.join(sharedAudio, "jfk.wav");
const MODEL = WHISPER_MODEL;
/**
 * Words of jfk.wav; Whisper may split them over several utterances ("Ask not." / "What your country…"),
 * and with the signed-int8 encoder whisper-base writes "ASK NOT!" as "asked not" in some runs.
 */
const WORDS = "not what your country can do for you";
const OPTIONS = JSON.stringify({ model: MODEL, language_config: { languages: ["en"] }, messages_config: { receive_lifecycle_events: true } }, null, 2);

let service: RunningServer;
let browser: Browser;
/** Uncaught errors of every page: none is expected. */
const pageErrors: string[] = [];

beforeAll(async () => {
  service = await startService();
  browser = await launchChromium([
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    `--use-file-for-fake-audio-capture=${CLIP}%noloop`,
  ]);
});
afterAll(async () => {
  expect(pageErrors).toEqual([]);
  await browser?.close();
  await service?.stop();
});

async function openPlayground(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await page.goto(service.url + "/");
  await page.fill("#api-key", KEY);
  await page.fill("#options", OPTIONS);
  return page;
}

/** Text of every final transcript on the page, in order, lower case without punctuation. */
const normalize = (text: string) => text.toLowerCase().replace(/[^a-z0-9' ]+/g, " ").replace(/\s+/g, " ").trim();
const finals = async (page: Page) => normalize((await page.locator("#timeline .final .text").allTextContents()).join(" "));

/** Waits until the finals on the page contain `words`; on a timeout, says what the page showed (and keeps a screenshot). */
async function waitForWords(page: Page, words: string, timeout: number): Promise<void> {
  try {
    await finalsContain(page, words, timeout);
  } catch (e) {
    await page.screenshot({ path: path.join(screenshotDir, "playground-timeout.png"), fullPage: true }).catch(() => {});
    const shown = async (selector: string) => (await page.locator(selector).allTextContents().catch(() => [])).join(" | ");
    throw new Error(
      `${e instanceof Error ? e.message : String(e)}; the page showed status «${await shown("#status")}», problem «${await shown("#problem")}», ` +
        `acks «${await shown("#acks")}», finals «${await finals(page).catch(() => "")}»`,
    );
  }
}

function finalsContain(page: Page, words: string, timeout: number): Promise<unknown> {
  return page.waitForFunction(
    (expected) => {
      // Runs in the page (the test's own types have no DOM).
      const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<{ textContent: string | null }> } }).document;
      const texts = [...doc.querySelectorAll("#timeline .final .text")].map((e) => e.textContent ?? "");
      return texts.join(" ").toLowerCase().replace(/[^a-z0-9' ]+/g, " ").replace(/\s+/g, " ").includes(expected);
    },
    words,
    { timeout, polling: 250 },
  );
}

describe("playground", () => {
  test("microphone: the words of the clip appear as finals, with speech markers and acks; none is lost while the session opens", async () => {
    await requireWhisper(service);
    const page = await openPlayground();
    // The session opens 3 s after the microphone (the clip's first words end at 2.8 s): what the
    // microphone heard meanwhile is sent first, so the finals start with the clip's first words.
    await page.route("**/v2/live", async (route) => {
      await Bun.sleep(3000);
      await route.continue();
    });
    await page.click("#mic");
    await waitForWords(page, WORDS, 100_000);
    await waitForWords(page, "and so my fellow", 30_000);
    await page.click("#stop");
    await page.locator('#status[data-phase="done"]').waitFor({ timeout: 60_000 });
    expect(await finals(page)).toContain(WORDS);
    expect(await page.locator("#timeline .marker.speech_start").count()).toBeGreaterThan(0);
    expect(await page.locator("#timeline .marker.speech_end").count()).toBeGreaterThan(0);
    expect(await page.locator("#acks").textContent()).toMatch(/acknowledged [1-9][\d.]* s \(\d+ acks\) · stop acknowledged/);
    expect(await page.locator("#lifecycle").textContent()).toContain("end_session");
    await page.screenshot({ path: path.join(screenshotDir, "playground-microphone.png"), fullPage: true });
    await page.close();
  }, 180_000);

  test("file: a WAV chosen in the file input is decoded, streamed and transcribed", async () => {
    await requireWhisper(service);
    const page = await openPlayground();
    await page.setInputFiles("#file", CLIP);
    await page.locator('#status[data-phase="done"]').waitFor({ timeout: 150_000 });
    const text = await finals(page);
    expect(text).toContain(WORDS);
    expect(text).toContain("fellow americans");
    expect(await page.locator("#acks").textContent()).toMatch(/acknowledged 1[01]\.\d s/);
    await page.screenshot({ path: path.join(screenshotDir, "playground-file.png"), fullPage: true });
    await page.close();
  }, 180_000);

  test("a wrong key is reported on the page, nothing is streamed", async () => {
    const page = await browser.newPage();
    await page.goto(service.url + "/");
    await page.fill("#api-key", "not-a-key");
    await page.setInputFiles("#file", CLIP);
    await page.locator('#status[data-phase="failed"]').waitFor({ timeout: 15_000 });
    expect(await page.locator("#problem").textContent()).toContain("401");
    await page.close();
  });
});
