/**
 * AudioWorklet processor: collects the first input channel into frames of `frameSamples` samples
 * and posts each frame to the page as 16-bit little-endian PCM (an Int16Array's buffer, transferred).
 */
declare const sampleRate: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: unknown);
}
declare function registerProcessor(name: string, ctor: new (options: { processorOptions: { frameSamples: number } }) => AudioWorkletProcessor): void;

class Pcm16Framer extends AudioWorkletProcessor {
  private readonly frameSamples: number;
  private frame: Int16Array;
  private filled = 0;

  constructor(options: { processorOptions: { frameSamples: number } }) {
    super(options);
    this.frameSamples = options.processorOptions.frameSamples || Math.round(sampleRate / 10);
    this.frame = new Int16Array(this.frameSamples);
  }

  process(inputs: Float32Array[][]): boolean {
    const samples = inputs[0]?.[0];
    if (!samples) return true;
    for (let i = 0; i < samples.length; i++) {
      const s = Math.max(-1, Math.min(1, samples[i]!));
      this.frame[this.filled++] = s < 0 ? Math.round(s * 32768) : Math.round(s * 32767);
      if (this.filled === this.frame.length) {
        this.port.postMessage(this.frame.buffer, [this.frame.buffer]);
        // The posted buffer is transferred (detached here): start a new frame.
        this.frame = new Int16Array(this.frameSamples);
        this.filled = 0;
      }
    }
    return true;
  }
}

registerProcessor("pcm16-framer", Pcm16Framer);
