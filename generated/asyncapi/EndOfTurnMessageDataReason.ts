
type EndOfTurnMessageDataReason = "model" | "timeout" | 'null';
export { EndOfTurnMessageDataReason };