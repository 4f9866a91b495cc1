/**
 * `/docs` in real headless Chromium with every request to another origin refused: the HTTP reference
 * (Redoc from npm, served by the service) and the WebSocket reference (generated from the AsyncAPI
 * document) render their operations and messages offline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import type { RunningServer } from "../../server/server.ts";
import { launchChromium, screenshotDir } from "./browser.ts";
import { startService } from "./service.ts";

let service: RunningServer;
let browser: Browser;
const elsewhere: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  service = await startService();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** A page whose requests may only reach the service; anything else is refused and remembered. */
async function offlinePage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const origin = new URL(service.url).origin;
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  return page;
}

describe("/docs", () => {
  test("the HTTP reference renders every operation from /openapi.json without another origin", async () => {
    const page = await offlinePage();
    await page.goto(service.url + "/docs");
    const create = page.locator('[id="operation/createLiveSession"]');
    await create.waitFor({ timeout: 30_000 });
    await expect(create.locator("h2").first().textContent()).resolves.toMatch(/^Create a live session\s*$/);
    const text = (await page.locator("#redoc").textContent()) ?? "";
    for (const expected of ["List live sessions", "/v2/live/{id}", "Authorizations:serviceKey"]) expect(text).toContain(expected);
    for (const id of ["listLiveSessions", "getLiveSession", "deleteLiveSession", "getLiveSessionRecording"]) {
      expect(await page.locator(`[id="operation/${id}"]`).count()).toBe(1);
    }
    await page.screenshot({ path: path.join(screenshotDir, "docs-http.png") });
    expect(elsewhere).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("the WebSocket reference shows the operations and messages of the AsyncAPI document", async () => {
    const page = await offlinePage();
    await page.goto(service.url + "/docs/websocket/");
    const send = page.locator('[id="operation-send-sendTranscript"]');
    await send.waitFor({ timeout: 30_000 });
    expect(await send.textContent()).toContain("sendTranscript");
    const message = page.locator('[id="message-transcript"]');
    expect(await message.textContent()).toContain("A partial or final transcript of one utterance.");
    for (const id of ["operation-receive-receiveAudioChunk", "operation-receive-receiveStopRecording", "operation-send-sendEndOfTurn", "message-audioChunkAck", "message-endSession"]) {
      expect(await page.locator(`[id="${id}"]`).count()).toBe(1);
    }
    expect(await page.locator('nav a[href="/docs"]').textContent()).toBe("HTTP API");
    await page.screenshot({ path: path.join(screenshotDir, "docs-websocket.png") });
    await send.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(screenshotDir, "docs-websocket-operation.png") });
    expect(elsewhere).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("/docs/websocket redirects to the folder; unknown files are 404", async () => {
    const redirect = await fetch(service.url + "/docs/websocket", { redirect: "manual" });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get("location")).toBe("/docs/websocket/");
    expect((await fetch(service.url + "/docs/websocket/js/nothing.js")).status).toBe(404);
    // The page's scripts: its own app and the template's UI bundle (served from the npm package).
    for (const name of ["js/app.js", "js/asyncapi-ui.min.js"]) {
      const res = await fetch(`${service.url}/docs/websocket/${name}`);
      expect({ name, status: res.status, type: res.headers.get("content-type"), big: (await res.text()).length > 10_000 }).toEqual({
        name,
        status: 200,
        type: expect.stringContaining("javascript"),
        big: true,
      });
    }
    expect((await fetch(service.url + "/docs/websocket/../../package.json")).status).toBe(404);
  });
});
