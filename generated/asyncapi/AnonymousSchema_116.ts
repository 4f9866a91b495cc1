
type AnonymousSchema_116 = "srt" | "vtt";
export { AnonymousSchema_116 };