/** The suite's generators against the contract's own validators: generated values are valid, mutations invalid. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { arbitraryOf } from "../../conformance/arbitrary.ts";
import { buildContract, derefSchema, localDocuments } from "../../conformance/contract.ts";
import { fieldName, mutationsOf } from "../../conformance/mutators.ts";
import { ignoredMembers, refusedMembers, withoutRefused } from "../../conformance/refused.ts";

const contract = buildContract(await localDocuments());
const deref = (s: Record<string, unknown>) => derefSchema(contract, s);
const bodies = contract.operations.filter((o) => o.body);

describe("schema arbitraries and mutators", () => {
  for (const op of bodies) {
    test(`${op.operationId}: generated bodies validate against the request schema`, () => {
      fc.assert(
        // (The generator does not read if/then: the suite filters its bodies the same way, conformance/http.ts.)
        fc.property(arbitraryOf(op.body!.schema, { deref }).filter((v) => contract.validate(op.body!.schema, withoutRefused(op.body!.schema, v, deref)).ok), (v) => {
          // Valid but for the refused values (schema-invalid now, kept so that their 400 is checked).
          const r = contract.validate(op.body!.schema, withoutRefused(op.body!.schema, v, deref));
          if (!r.ok) throw new Error(r.errors.join("; "));
        }),
        { seed: 1, numRuns: 200 },
      );
    });

    test(`${op.operationId}: every kind of mutation occurs, and the refused ones name a field`, () => {
      const kinds = new Set<string>();
      fc.assert(
        // (The generator does not read if/then: the suite filters its bodies the same way, conformance/http.ts.)
        fc.property(arbitraryOf(op.body!.schema, { deref }).filter((v) => contract.validate(op.body!.schema, withoutRefused(op.body!.schema, v, deref)).ok), (v) => {
          for (const m of mutationsOf(op.body!.schema, v, deref)) {
            if (contract.validate(op.body!.schema, m.value).ok) continue;
            kinds.add(m.kind);
            expect(fieldName(m)).not.toBeNull();
          }
        }),
        { seed: 2, numRuns: 100 },
      );
      expect(kinds.has("wrong_type")).toBe(true);
      expect(kinds.has("unknown_member")).toBe(true);
    });
  }

  test("createLiveSession: generated bodies switch on x-refused options (expected 400), withoutRefused takes them out", () => {
    const op = contract.operations.find((o) => o.operationId === "createLiveSession")!;
    const found = new Set<string>();
    fc.assert(
      // (The generator does not read if/then: the suite filters its bodies the same way, conformance/http.ts.)
      fc.property(arbitraryOf(op.body!.schema, { deref }).filter((v) => contract.validate(op.body!.schema, withoutRefused(op.body!.schema, v, deref)).ok), (v) => {
        for (const p of refusedMembers(op.body!.schema, v, deref)) found.add(p);
        const kept = withoutRefused(op.body!.schema, v, deref);
        expect(refusedMembers(op.body!.schema, kept, deref)).toEqual([]);
        expect(contract.validate(op.body!.schema, kept).ok).toBe(true);
      }),
      { seed: 3, numRuns: 300 },
    );
    expect(found).toContain("realtime_processing.translation_config.informal");
    expect(found).not.toContain("post_processing.summarization");
    const body = { post_processing: { summarization: false, chapterization: true }, realtime_processing: { translation_config: { target_languages: ["en"], informal: true } } };
    expect(refusedMembers(op.body!.schema, body, deref)).toEqual(["realtime_processing.translation_config.informal"]);
    // Accepted and ignored (x-ignored), not refused.
    expect(ignoredMembers(op.body!.schema, body, deref)).toEqual(["post_processing.chapterization"]);
  });

  test("server messages and callback envelopes of the documents have validators; an unknown type is refused", () => {
    expect(contract.ws.serverTypes).toContain("end_session");
    expect(contract.callbackEvents).toContain("live.end_session");
    expect(contract.validateServerMessage({ type: "nope" }).ok).toBe(false);
    expect(contract.validateServerMessage({ type: "end_session", session_id: "6b1f7c1e-1d1b-4c55-9a7a-0b0f0e0d0c0b", created_at: "2026-03-01T12:00:00.000Z" }).ok).toBe(true);
    // The acknowledgment admits no unknown members.
    const ack = { type: "audio_chunk", session_id: "6b1f7c1e-1d1b-4c55-9a7a-0b0f0e0d0c0b", created_at: "2026-03-01T12:00:00.000Z", acknowledged: true, data: { byte_range: [0, 3200], time_range: [0, 100] } };
    expect(contract.validateServerMessage(ack).ok).toBe(true);
    expect(contract.validateServerMessage({ ...ack, extra: 1 }).ok).toBe(false);
  });
});
