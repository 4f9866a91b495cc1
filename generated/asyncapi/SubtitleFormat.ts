
type SubtitleFormat = "srt" | "vtt";
export { SubtitleFormat };