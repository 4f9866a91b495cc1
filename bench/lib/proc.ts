/** CPU time and resident memory of a process, read from /proc (Linux). */
import { readdirSync, readFileSync } from "node:fs";

const TICK = 100; // USER_HZ on Linux

/** User + system CPU seconds of `pid` (threads included, exited ones too), at the 10 ms granularity of `stat`. */
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

/** One thread's name (`comm`: a worker thread's `name` option in Bun) and the CPU seconds it used. */
export interface ThreadCpu {
  name: string;
  cpu: number;
}

/**
 * Threads of `pid`, by id: name and CPU seconds, from `schedstat` (nanoseconds of run time) where
 * the kernel has it, else from `stat` (10 ms ticks).
 */
export function threadCpu(pid: number): Map<string, ThreadCpu> {
  const out = new Map<string, ThreadCpu>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const dir = `/proc/${pid}/task/${tid}`;
    try {
      const name = readFileSync(`${dir}/comm`, "utf8").trim();
      let cpu: number;
      try {
        cpu = Number(readFileSync(`${dir}/schedstat`, "utf8").split(" ")[0]) / 1e9;
      } catch {
        const stat = readFileSync(`${dir}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        cpu = (Number(fields[11]) + Number(fields[12])) / TICK;
      }
      out.set(tid, { name, cpu });
    } catch {
      /* thread gone */
    }
  }
  return out;
}

/** CPU seconds of `pid`'s live threads, summed (nanosecond precision: the bare socket's CPU is a few ticks). */
export function liveThreadsCpu(pid: number): number {
  let s = 0;
  for (const t of threadCpu(pid).values()) s += t.cpu;
  return s;
}

/**
 * CPU seconds each thread used between two readings, summed per group: `group(name)` names the
 * group of a thread (threads that started in between count from zero).
 */
export function threadDelta(before: Map<string, ThreadCpu>, after: Map<string, ThreadCpu>, group: (name: string, tid: string) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [tid, t] of after) {
    const k = group(t.name, tid);
    out[k] = (out[k] ?? 0) + t.cpu - (before.get(tid)?.cpu ?? 0);
  }
  return out;
}

/** Times thread `tid` of `pid` (its main thread by default) went to sleep and was woken: its voluntary context switches. */
export function wakeups(pid: number, tid: number = pid): number {
  const m = /voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

/** The 1-minute load average. */
export function loadAverage(): number {
  return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
}
