/**
 * What end-of-turn detection reports, shared by the detector (inference side) and the live session's
 * end-of-turn add-on, which turns them into `end_of_turn` and `end_of_turn_score` messages.
 */
import type { EndOfTurnScoreMessage } from "../generated/openapi/types.gen.ts";

/** An evaluation of a silence (→ `end_of_turn_score`, whose data it is). */
export type TurnScore = { type: "score" } & EndOfTurnScoreMessage["data"];

/** A turn that ended (→ `end_of_turn`). */
export interface TurnEnd {
  type: "end";
  channel: number;
  probability: number | null;
  reason: "model" | "timeout";
  /** When the turn ended: the end of its last speech. */
  end: number;
  /** Seconds of speech in the turn. */
  speech_duration: number;
}

export type TurnEvent = TurnScore | TurnEnd;
