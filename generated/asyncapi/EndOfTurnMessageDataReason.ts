
type EndOfTurnMessageDataReason = "model" | "timeout";
export { EndOfTurnMessageDataReason };