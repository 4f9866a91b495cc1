/**
 * Test preload (bunfig.toml `[test] preload`): a generous default timeout for every test file.
 *
 * Bun 1.3 has no `[test] timeout` key in bunfig.toml, and `setDefaultTimeout` applies only to the
 * file being loaded when it is called, so calling it once here would cover the first file alone.
 * This loader plugin therefore starts each `*.test.ts` with the call. The integration tests start
 * real servers, Redis and ONNX sessions, which can take well over Bun's 5 s default on a busy
 * machine. A timeout given to one test, or `bun test --timeout`, still applies as usual below it.
 */
import { plugin } from "bun";

export const DEFAULT_TEST_TIMEOUT_MS = Number(process.env.TEST_TIMEOUT_MS ?? 60_000);

plugin({
  name: "default-test-timeout",
  setup(build) {
    build.onLoad({ filter: /\.test\.[cm]?[jt]sx?$/ }, async ({ path }) => ({
      // Kept on the file's first line so that reported line numbers stay right.
      contents: `import { setDefaultTimeout as __setDefaultTimeout } from "bun:test"; __setDefaultTimeout(${DEFAULT_TEST_TIMEOUT_MS});` + (await Bun.file(path).text()),
      loader: path.endsWith("x") ? "tsx" : "ts",
    }));
  },
});
