/**
 * Allow-list of known service bugs the suite finds. A violation matching an entry is counted under
 * the entry and does not fail the run, so CI stays green while the bug stays visible in every
 * report. Remove an entry once its bug is fixed (the suite then checks the behaviour again).
 */
import type { Violation } from "./report.ts";

export interface KnownIssue {
  /** Short id and one-line description, printed in reports. */
  id: string;
  /** Whether a violation is this issue. */
  matches(v: Violation, context: string): boolean;
}

export const knownIssues: KnownIssue[] = [];

/** The known issue a violation is, or null. */
export function knownIssueOf(v: Violation, context: string, issues: KnownIssue[] = knownIssues): KnownIssue | null {
  return issues.find((i) => i.matches(v, context)) ?? null;
}
