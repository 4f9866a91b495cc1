/** The outbound queue honours the socket's backpressure answers and never drops essential messages. */
import { describe, expect, test } from "bun:test";
import { Outbox } from "./outbox.ts";

/** A socket whose answers to `send` are scripted: 1 = sent, -1 = buffered but saturated, 0 = dropped. */
class ScriptedSocket {
  readonly delivered: string[] = [];
  answers: number[] = [];
  send(data: string): number {
    const answer = this.answers.shift() ?? 1;
    if (answer !== 0) this.delivered.push(data);
    return answer;
  }
}

describe("Outbox", () => {
  test("a dropped message is kept and sent first on drain; order is preserved", () => {
    const socket = new ScriptedSocket();
    const box = new Outbox(socket);
    socket.answers = [1, 0];
    box.send("m1", true);
    box.send("m2", true); // dropped by the socket
    box.send("m3", true); // queued behind it
    expect(socket.delivered).toEqual(["m1"]);
    expect(box.pending).toBe(2);
    box.drain();
    expect(socket.delivered).toEqual(["m1", "m2", "m3"]);
    expect(box.pending).toBe(0);
  });

  test("after a saturated send, later messages wait for drain", () => {
    const socket = new ScriptedSocket();
    const box = new Outbox(socket);
    socket.answers = [-1];
    box.send("a", true);
    box.send("b", true);
    expect(socket.delivered).toEqual(["a"]);
    socket.answers = [-1];
    box.drain(); // b goes out but the socket is saturated again
    box.send("c", true);
    expect(socket.delivered).toEqual(["a", "b"]);
    box.drain();
    expect(socket.delivered).toEqual(["a", "b", "c"]);
  });

  test("over its bound, partials are discarded but essential messages are all kept", () => {
    const socket = new ScriptedSocket();
    const box = new Outbox(socket, { maxQueued: 3 });
    socket.answers = [0];
    box.send("final-0", true);
    for (let i = 0; i < 10; i++) box.send(`partial-${i}`, false);
    for (let i = 1; i <= 5; i++) box.send(`final-${i}`, true);
    expect(box.discarded).toBe(8);
    box.drain();
    expect(socket.delivered.filter((m) => m.startsWith("final"))).toEqual(["final-0", "final-1", "final-2", "final-3", "final-4", "final-5"]);
    expect(socket.delivered.filter((m) => m.startsWith("partial"))).toEqual(["partial-0", "partial-1"]);
  });
});
