/**
 * The pages served next to the API: the playground at `/` (bundled from `web/playground` by
 * `Bun.build` on first request, kept in memory), the HTTP reference at `/docs` (Redoc's standalone
 * bundle from npm, rendering `/openapi.json`) and the WebSocket reference at `/docs/websocket/`
 * (generated from the AsyncAPI document into `generated/docs/websocket/` by `bun run generate`).
 * Nothing is loaded from another origin.
 */
import type { Elysia } from "elysia";
import path from "node:path";
import type { Logger } from "../log.ts";

const root = path.resolve(import.meta.dir, "../..");
const web = path.join(root, "web");
const websocketDocs = path.join(root, "generated", "docs", "websocket");
/** The WebSocket reference's UI bundle, served from the template's npm package (not copied into generated/). */
const websocketUi = path.join(root, "node_modules", "@asyncapi", "html-template", "template", "js", "asyncapi-ui.min.js");

const HTML = "text/html; charset=utf-8";
const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/** The playground's scripts: the page and its AudioWorklet processor, built once. */
let bundle: Promise<Map<string, string>> | null = null;

async function buildPlayground(): Promise<Map<string, string>> {
  const result = await Bun.build({
    entrypoints: [path.join(web, "playground", "app.tsx"), path.join(web, "playground", "worklet.ts")],
    target: "browser",
    minify: true,
    naming: "[name].js",
    // The same bundle whatever NODE_ENV the service runs under (`bun test` sets it to "test").
    jsx: { runtime: "automatic", importSource: "preact", development: false },
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
  });
  if (!result.success) throw new AggregateError(result.logs, "the playground could not be bundled");
  const files = new Map<string, string>();
  for (const output of result.outputs) files.set(path.basename(output.path), await output.text());
  return files;
}

function playgroundScript(name: string): Promise<string | undefined> {
  bundle ??= buildPlayground().catch((e: unknown) => {
    bundle = null;
    throw e;
  });
  return bundle.then((files) => files.get(name));
}

/**
 * Redoc's standalone bundle from npm. Its sidebar shows a logo fetched from Redocly's CDN and hidden
 * when that fails; the address is blanked here so the page makes no request to another origin.
 */
let redoc: Promise<string> | null = null;
const REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";

function redocBundle(): Promise<string> {
  redoc ??= Bun.file(Bun.resolveSync("redoc/bundles/redoc.standalone.js", root))
    .text()
    .then((text) => text.replaceAll(REDOC_LOGO, ""));
  return redoc;
}

const file = (p: string, type: string) => new Response(Bun.file(p), { headers: { "content-type": type } });
const notFound = () => new Response("not found", { status: 404, headers: { "content-type": "text/plain" } });

/** Files of the generated WebSocket reference that may be served (no path from the request reaches the disk). */
const websocketFiles: Record<string, string> = {
  "": HTML,
  "index.html": HTML,
  "css/global.min.css": CSS,
  "css/asyncapi.min.css": CSS,
  "js/asyncapi-ui.min.js": JS,
  "js/app.js": JS,
};

export function pageRoutes<App extends Elysia>(app: App, log: Logger): App {
  app.get("/", () => file(path.join(web, "playground", "index.html"), HTML));
  app.get("/playground/style.css", () => file(path.join(web, "playground", "style.css"), CSS));
  app.get("/playground/:name", async ({ params }: { params: { name: string } }) => {
    let script: string | undefined;
    try {
      script = await playgroundScript(params.name);
    } catch (e) {
      log.error("the playground could not be bundled", { error: e });
      return new Response("the playground could not be built; see the service log", { status: 500, headers: { "content-type": "text/plain" } });
    }
    return script === undefined ? notFound() : new Response(script, { headers: { "content-type": JS, "cache-control": "no-cache" } });
  });
  app.get("/docs", () => file(path.join(web, "docs", "index.html"), HTML));
  app.get("/docs/redoc.standalone.js", async () => new Response(await redocBundle(), { headers: { "content-type": JS, "cache-control": "public, max-age=3600" } }));
  const websocketPage = (name: string) => {
    const type = websocketFiles[name];
    if (type === undefined) return notFound();
    if (name === "js/asyncapi-ui.min.js") return file(websocketUi, type);
    return file(path.join(websocketDocs, name === "" ? "index.html" : name), type);
  };
  app.get("/docs/websocket/*", ({ params }: { params: { "*": string } }) => websocketPage(params["*"]));
  // The router also sends `/docs/websocket/` here; the page's links are relative to the folder.
  app.get("/docs/websocket", ({ request }: { request: Request }) =>
    new URL(request.url).pathname.endsWith("/") ? websocketPage("") : Response.redirect("/docs/websocket/", 301),
  );
  return app;
}
