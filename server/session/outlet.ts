/**
 * Where a session's messages go: filtered by the session's `messages_config` (socket) and
 * `callback_config` (callback URL), sent to the attached socket, or held while none is attached.
 * Finals sent after the earliest point the client may resume from are remembered as unconfirmed: a
 * dropped connection may have lost them in flight, so a resume sends them again (same `data.id`;
 * clients keep one per id).
 */
import type { CallbackDispatcher } from "../delivery/callbacks.ts";
import type { AppliedOptions } from "../options/defaults.ts";
import { byCallback, flagOf, onSocket, type MessageFlag, type SessionMessage } from "./messages.ts";

/** Where a session's messages go while a socket is attached. */
export interface SessionSink {
  send(message: SessionMessage): void;
  close(code: number, reason: string): void;
}

/** Essential messages kept for a detached socket (delivered on reconnect). */
const MAX_HELD_MESSAGES = 10_000;

export interface OutletOptions {
  sessionId: string;
  options: AppliedOptions;
  /** The account's secret signing callbacks. */
  callbackSecret: string;
  callbacks: CallbackDispatcher | null;
  /** False once the session has ended: nothing more is held for a later socket. */
  isOpen: () => boolean;
}

export class Outlet {
  private sink: SessionSink | null = null;
  private held: SessionMessage[] = [];
  private unconfirmed: SessionMessage[] = [];

  constructor(private readonly o: OutletOptions) {}

  get attached(): boolean {
    return this.sink !== null;
  }

  /** Whether the socket or the callback URL receives messages selected by `flag`. */
  wants(flag: MessageFlag): boolean {
    return this.o.options.messages_config[flag] || this.callbackFlag(flag);
  }

  /** Delivers one message to the callback URL and the socket, as their flags say. */
  emit(message: SessionMessage): void {
    const flag = flagOf(message);
    const cfg = this.o.options.callback_config;
    if (this.o.callbacks && flag !== null && byCallback(message) && this.callbackFlag(flag) && cfg?.url) {
      this.o.callbacks.enqueue(this.o.sessionId, { url: cfg.url, secret: this.o.callbackSecret, message });
    }
    if (!onSocket(message) || (flag !== null && !this.o.options.messages_config[flag])) return;
    if (message.type === "transcript" && message.data.is_final) this.unconfirmed.push(message);
    if (this.sink) this.sink.send(message);
    else if (this.o.isOpen() && this.held.length < MAX_HELD_MESSAGES && !(message.type === "transcript" && !message.data.is_final)) {
      this.held.push(message);
    }
  }

  /** A socket takes over (the previous one, if any, is closed as superseded). */
  attach(sink: SessionSink): void {
    if (this.sink) this.sink.close(4000, "superseded by a new connection");
    this.sink = sink;
  }

  /** A resumed socket: sends what it may have missed, unconfirmed finals first, then held messages. */
  replay(sink: SessionSink): void {
    const held = this.held;
    this.held = [];
    for (const m of this.unconfirmed) if (!held.includes(m)) sink.send(m);
    for (const m of held) sink.send(m);
  }

  /** The socket went away; true when it was the attached one. */
  detach(sink: SessionSink): boolean {
    if (this.sink !== sink) return false;
    this.sink = null;
    return true;
  }

  /** Closes the attached socket, if any, and forgets it. */
  close(code: number, reason: string): void {
    this.sink?.close(code, reason);
    this.sink = null;
  }

  /**
   * The client confirmed an acknowledgment sent after every final ending by `seconds` (session time):
   * those finals are delivered.
   */
  confirmUntil(seconds: number): void {
    this.unconfirmed = this.unconfirmed.filter((m) => m.type !== "transcript" || m.data.utterance.end > seconds);
  }

  /** What a later holder of the session sends on the first attach. */
  pending(): { held: SessionMessage[]; unconfirmed: SessionMessage[] } {
    return { held: this.held, unconfirmed: this.unconfirmed.filter((m) => !this.held.includes(m)) };
  }

  /** Restores what the previous holder had not delivered. */
  restore(held: SessionMessage[], unconfirmed: SessionMessage[]): void {
    this.held.push(...held);
    this.unconfirmed.push(...unconfirmed);
  }

  private callbackFlag(flag: MessageFlag): boolean {
    const cfg = this.o.options.callback_config as Partial<Record<MessageFlag, boolean>> | undefined;
    return this.o.options.callback === true && !!cfg && cfg[flag] === true;
  }
}
