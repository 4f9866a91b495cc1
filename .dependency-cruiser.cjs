/**
 * Layer rules of the project, checked by `bun run lint:deps` (dependency-cruiser) in CI.
 * See ARCHITECTURE.md for the rooms these rules keep apart. Type-only imports count.
 */
/** The inference layer's interface: what the server may know of inference. */
const COORDINATOR_INTERFACE = "^workers/coordinator/(types|can-serve)[.]ts$";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "Modules import downward: no import cycle, type-only imports included (a cycle is a room that knows the room that knows it).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "inference-never-imports-the-server",
      comment: "workers/ (engines, coordinator, worker process) is usable without the server.",
      severity: "error",
      from: { path: "^workers/" },
      to: { path: "^server/" },
    },
    {
      name: "common-belongs-to-no-process",
      comment: "common/ (Redis plumbing, logger, timeouts) is shared by the server and the worker process and imports neither.",
      severity: "error",
      from: { path: "^common/" },
      to: { path: "^(server|workers)/" },
    },
    {
      name: "store-never-imports-worker-plumbing",
      comment: "The store uses common/ for Redis, never the worker's or the coordinator's code.",
      severity: "error",
      from: { path: "^server/store/" },
      to: { path: "^workers/" },
    },
    {
      name: "handlers-import-no-inference-internals",
      comment: "HTTP handlers know inference only through the coordinator's interface (no coordinator internals, no engine).",
      severity: "error",
      from: { path: "^server/http/" },
      to: { path: "^workers/", pathNot: COORDINATOR_INTERFACE },
    },
    {
      name: "session-talks-to-inference-through-the-coordinator",
      comment: "The live session reaches inference only through the coordinator interface.",
      severity: "error",
      from: { path: "^server/session/" },
      to: { path: "^workers/", pathNot: COORDINATOR_INTERFACE },
    },
    {
      name: "gateway-loads-no-model",
      comment: "The gateway adapts sockets; models (VAD included) are loaded by the composition root.",
      severity: "error",
      from: { path: "^server/gateway/" },
      to: { path: ["^workers/", "onnxruntime"], pathNot: COORDINATOR_INTERFACE },
    },
    {
      name: "only-the-composition-root-picks-implementations",
      comment: "Coordinator implementations, their metrics and the VAD model are chosen in server/server.ts.",
      severity: "error",
      from: { path: "^server/", pathNot: ["^server/server[.]ts$", "[.]test[.]ts$"] },
      to: { path: ["^workers/coordinator/(in-process|redis|redis-metrics)[.]ts$", "^workers/vad/(silero|batched)[.]ts$"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "conformance-imports-nothing-of-the-service",
      comment: "The conformance suite tests any deployment from its published contracts.",
      severity: "error",
      from: { path: "^conformance/" },
      to: { path: "^(server|workers|common)/" },
    },
  ],
  options: {
    doNotFollow: { path: ["node_modules", "^generated/"] },
    exclude: { path: ["^node_modules/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".json"] },
  },
};
