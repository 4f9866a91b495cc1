/** CPU time and resident memory of a process, read from /proc (Linux). */
import { readFileSync } from "node:fs";

const TICK = 100; // USER_HZ on Linux

/** User + system CPU seconds of `pid` (threads included). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICK;
}

/** Resident set size of `pid` in MB. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Threads of `pid` and the CPU seconds each used (to see whether both cores work). */
export function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of require("node:fs").readdirSync(`/proc/${pid}/task`) as string[]) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(tid, (Number(fields[11]) + Number(fields[12])) / TICK);
    } catch {
      /* thread gone */
    }
  }
  return out;
}

/** The 1-minute load average. */
export function loadAverage(): number {
  return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
}
