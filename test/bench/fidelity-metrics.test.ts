/** The fidelity benchmark's lag of a turn: by alignment, and by the final that holds the turn's audio. */
import { describe, expect, test } from "bun:test";
import { clipMetrics, type Final, type Turn } from "../../bench/fidelity/metrics.ts";

describe("fidelity metrics: a turn's lag", () => {
  // A noisy clip's last two turns and whisper-base's finals of them, from a fidelity run.
  const turns: Turn[] = [
    { text: "Two.", start: 6.11, end: 6.51 },
    { text: "The account number is eight eight one, four zero two, nine nine six, and the routing number is zero two one, zero zero zero, zero two one.", start: 7.61, end: 18.16 },
  ];

  test("a misheard last word aligned to a later final counts that final's lag; the final holding the turn's audio counts its own", () => {
    const finals: Final[] = [
      { text: "Do.", start: 5.976, end: 6.688, at: 7.202 },
      { text: "Did a count number is 881, 402, 996 and the routing number is 021, 0 0 0 0 0 21.", start: 7.448, end: 18.336, at: 19.618 },
    ];
    const m = clipMetrics(turns, finals, 0.64);
    // "Two." aligns into the dictation's final: 12.5 s late by alignment.
    expect(m.lags[0]).toBeCloseTo(19.618 - 6.51 - 0.64, 6);
    // The final "Do." holds the turn's audio and came 0.05 s after the endpointing window.
    expect(m.timedLags[0]).toBeCloseTo(7.202 - 6.51 - 0.64, 6);
    expect(m.timedLags[1]).toBeCloseTo(19.618 - 18.16 - 0.64, 6);
  });

  test("turns inside one long final count its arrival either way", () => {
    const finals: Final[] = [{ text: "Two. The account number is 881, 402, 996 and the routing number is 021, 000, 021.", start: 0, end: 18.3, at: 19.5 }];
    const m = clipMetrics(turns, finals, 0.64);
    expect(m.timedLags).toEqual(m.lags);
    expect(m.lags).toHaveLength(2);
  });
});
