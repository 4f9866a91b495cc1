export { WorkerRegistry, unionCapabilities, capacityFor, type WorkerAdvert, type ModelCapacity } from "./registry.ts";
