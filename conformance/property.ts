/** Runs one fast-check property whose cases are exchanges with the service, shrinking failures. */
import fc from "fast-check";
import { knownIssueOf, type KnownIssue } from "./known-issues.ts";
import { noteKnown, type Failure, type Report, type Violation } from "./report.ts";

export interface CaseOutcome {
  violations: Violation[];
  /** Human-readable input (no secrets). */
  describe: string;
}

/** A stable per-property seed derived from the run seed and the property name. */
export function propertySeed(seed: number, name: string): number {
  let h = seed | 0;
  for (let i = 0; i < name.length; i++) h = (Math.imul(h ^ name.charCodeAt(i), 16777619) + 0x9e3779b9) | 0;
  return h;
}

/**
 * Runs `numRuns` cases of `arbitrary` through `exec`. Violations of known issues are tallied in the
 * report; any other violation fails the property, which fast-check shrinks to a minimal case.
 */
export async function runProperty<T>(
  report: Report,
  area: Failure["area"],
  name: string,
  arbitrary: fc.Arbitrary<T>,
  numRuns: number,
  seed: number,
  exec: (value: T) => Promise<CaseOutcome>,
  issues?: KnownIssue[],
): Promise<boolean> {
  const s = propertySeed(seed, name);
  const started = performance.now();
  let cases = 0;
  let last: CaseOutcome | null = null;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      cases++;
      const outcome = await exec(value);
      const fresh: Violation[] = [];
      for (const v of outcome.violations) {
        const known = knownIssueOf(v, outcome.describe, issues);
        if (known) noteKnown(report, known.id, outcome.describe);
        else fresh.push(v);
      }
      if (fresh.length) {
        last = { violations: fresh, describe: outcome.describe };
        return false;
      }
      return true;
    }),
    { seed: s, numRuns, maxSkipsPerRun: 50 },
  );
  report.areas[area].cases += cases;
  const ok = !details.failed;
  report.properties.push({ area, name, cases, ok, durationMs: Math.round(performance.now() - started) });
  if (!ok) {
    report.areas[area].failures++;
    const found = last as CaseOutcome | null;
    report.failures.push({
      area,
      property: name,
      seed: s,
      replayPath: details.counterexamplePath ?? undefined,
      counterexample: found?.describe ?? String(details.errorInstance ?? "unknown"),
      violations: found?.violations ?? [{ check: "not_a_server_error", message: String(details.errorInstance ?? "property threw") }],
    });
  }
  return ok;
}
