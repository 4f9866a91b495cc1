/**
 * Layer rules of the project, checked by `bun run lint:deps` (dependency-cruiser) in CI.
 * See ARCHITECTURE.md for the rooms these rules keep apart. Type-only imports count.
 */
/** The inference contract: the coordinator interface, `canServe`, the VAD interface, the wire codec. */
const CONTRACT = "^workers/contract/";
/** What the server may use of inference: the contract and the public surface (catalogue, add-on probes and loaders). */
const INFERENCE_SURFACE = ["^workers/contract/", "^workers/public[.]ts$"];

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
      comment: "HTTP handlers know inference only through the contract (workers/contract/: no coordinator internals, no engine).",
      severity: "error",
      from: { path: "^server/http/" },
      to: { path: "^workers/", pathNot: CONTRACT },
    },
    {
      name: "session-talks-to-inference-through-the-coordinator",
      comment: "The live session reaches inference only through the coordinator interface.",
      severity: "error",
      from: { path: "^server/session/" },
      to: { path: "^workers/", pathNot: CONTRACT },
    },
    {
      name: "gateway-loads-no-model",
      comment: "The gateway adapts sockets; models (VAD included) are loaded by the composition root.",
      severity: "error",
      from: { path: "^server/gateway/" },
      to: { path: ["^workers/", "onnxruntime"], pathNot: CONTRACT },
    },
    {
      name: "only-the-composition-root-picks-implementations",
      comment: "Coordinator implementations, their metrics and the VAD model are chosen in server/server.ts.",
      severity: "error",
      from: { path: "^server/", pathNot: ["^server/server[.]ts$", "[.]test[.]ts$"] },
      to: { path: ["^workers/coordinator/(in-process|redis|redis-metrics)[.]ts$", "^workers/engines/vad/(silero|batched)[.]ts$"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "server-knows-inference-through-its-surface",
      comment: "Besides the composition root, the server imports inference only through workers/contract/ and workers/public.ts.",
      severity: "error",
      from: { path: "^server/", pathNot: ["^server/server[.]ts$", "[.]test[.]ts$"] },
      to: { path: "^workers/", pathNot: INFERENCE_SURFACE },
    },
    {
      name: "the-contract-is-the-ground",
      comment: "workers/contract/ imports no other inference code (but the engines' request/result types), so every implementation can import it downward.",
      severity: "error",
      from: { path: "^workers/contract/" },
      to: { path: "^workers/", pathNot: ["^workers/contract/", "^workers/engines/types[.]ts$"] },
    },
    {
      name: "implementations-never-import-the-coordinator",
      comment: "The coordinator sits on top of the catalogue, the pool, the registry and the worker process; they import the contract, never workers/coordinator/.",
      severity: "error",
      from: { path: "^workers/", pathNot: ["^workers/coordinator/", "^workers/public[.]ts$"] },
      to: { path: "^workers/coordinator/" },
    },
    {
      name: "engines-know-no-orchestration",
      comment: "Engines (the VAD and the add-ons models included) are loaded by the pool, the worker process and the composition root; they import none of them, nor the coordinator.",
      severity: "error",
      from: { path: "^workers/engines/", pathNot: "[.]test[.]ts$" },
      to: { path: "^workers/(coordinator|pool|distributed)/" },
    },
    {
      name: "the-public-surface-is-for-the-server",
      comment: "workers/public.ts is the server's door into inference; inference code imports its modules directly.",
      severity: "error",
      from: { path: "^workers/" },
      to: { path: "^workers/public[.]ts$" },
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
