/**
 * Audio sources of the playground, both producing mono 16-bit PCM frames of 100 ms:
 * the microphone (getUserMedia → AudioWorklet) and a file (decodeAudioData, resampled to 16 kHz,
 * sent at the pace of real time).
 */

/** Sample rates the session config accepts (`sample_rate`). */
const SESSION_RATES = [8000, 16000, 32000, 44100, 48000];
export const FILE_RATE = 16000;
const FRAME_S = 0.1;
/** Microphone frames kept while the session opens (30 s); later ones are dropped until it is open. */
const MAX_PENDING_FRAMES = 300;

export interface AudioSource {
  /** Sample rate of the frames, declared in the session config. */
  rate: number;
  /**
   * Starts delivering frames (the microphone's first ones are those captured since it was opened);
   * `onEnd` is called when the source has nothing more to send.
   */
  start(onFrame: (pcm: ArrayBuffer) => void, onEnd: () => void): void;
  stop(): void;
}

/**
 * The microphone through an AudioWorklet. The context runs at 16 kHz where the browser resamples the
 * microphone itself; where it refuses (some browsers only connect a microphone to a context at the
 * device rate), the context keeps the device rate and the session declares it.
 */
export async function microphone(workletUrl: string): Promise<AudioSource> {
  if (!navigator.mediaDevices?.getUserMedia) {
    throw new Error("the browser offers a microphone only to secure pages: open the playground over https or on localhost (a file works anywhere)");
  }
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
  });
  const open = async (options?: AudioContextOptions) => {
    const context = new AudioContext(options);
    try {
      const input = context.createMediaStreamSource(stream);
      return { context, input };
    } catch (e) {
      await context.close();
      throw e;
    }
  };
  let graph: { context: AudioContext; input: MediaStreamAudioSourceNode };
  try {
    graph = await open({ sampleRate: 16000 });
  } catch {
    graph = await open();
  }
  const { context, input } = graph;
  if (!SESSION_RATES.includes(context.sampleRate)) {
    stream.getTracks().forEach((t) => t.stop());
    await context.close();
    throw new Error(`the audio device runs at ${context.sampleRate} Hz, which a session cannot declare`);
  }
  await context.audioWorklet.addModule(workletUrl);
  const framer = new AudioWorkletNode(context, "pcm16-framer", {
    numberOfInputs: 1,
    numberOfOutputs: 0,
    channelCount: 1,
    channelCountMode: "explicit",
    processorOptions: { frameSamples: Math.round(context.sampleRate * FRAME_S) },
  });
  // Capture starts now, not once the session is open: the words said between the click and the
  // socket's opening are kept (at most MAX_PENDING_FRAMES of them) and sent first.
  const pending: ArrayBuffer[] = [];
  framer.port.onmessage = (event: MessageEvent<ArrayBuffer>) => {
    if (pending.length < MAX_PENDING_FRAMES) pending.push(event.data);
  };
  input.connect(framer);
  void context.resume();
  let onEnd = () => {};
  let stopped = false;
  return {
    rate: context.sampleRate,
    start(onFrame, end) {
      onEnd = end;
      for (const frame of pending.splice(0)) onFrame(frame);
      framer.port.onmessage = (event: MessageEvent<ArrayBuffer>) => onFrame(event.data);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      framer.port.onmessage = null;
      input.disconnect();
      stream.getTracks().forEach((t) => t.stop());
      void context.close();
      onEnd();
    },
  };
}

/** A file decoded by the browser (any format it reads), mixed to mono at 16 kHz, sent in real time. */
export async function audioFile(file: Blob): Promise<AudioSource & { duration: number }> {
  // decodeAudioData resamples to the context's rate.
  const decoded = await new OfflineAudioContext(1, 1, FILE_RATE).decodeAudioData(await file.arrayBuffer());
  const mono = new Float32Array(decoded.length);
  for (let c = 0; c < decoded.numberOfChannels; c++) {
    const channel = decoded.getChannelData(c);
    for (let i = 0; i < mono.length; i++) mono[i] += channel[i]! / decoded.numberOfChannels;
  }
  const pcm = new Int16Array(mono.length);
  for (let i = 0; i < mono.length; i++) {
    const s = Math.max(-1, Math.min(1, mono[i]!));
    pcm[i] = s < 0 ? Math.round(s * 32768) : Math.round(s * 32767);
  }
  const frameSamples = Math.round(FILE_RATE * FRAME_S);
  let timer: ReturnType<typeof setInterval> | undefined;
  let onEnd = () => {};
  const stop = () => {
    if (timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
    onEnd();
  };
  return {
    rate: FILE_RATE,
    duration: decoded.duration,
    start(onFrame, end) {
      onEnd = end;
      let offset = 0;
      const started = performance.now();
      timer = setInterval(() => {
        // Catch up with the clock: everything due by now is sent, never ahead of it.
        const due = Math.min(pcm.length, Math.round(((performance.now() - started) / 1000) * FILE_RATE) + frameSamples);
        while (offset < due) {
          const next = Math.min(offset + frameSamples, pcm.length);
          onFrame(pcm.slice(offset, next).buffer);
          offset = next;
        }
        if (offset >= pcm.length) stop();
      }, FRAME_S * 1000);
    },
    stop,
  };
}
