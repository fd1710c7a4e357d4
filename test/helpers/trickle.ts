/**
 * A client as slow as a slowloris: a raw loopback socket that sends its request a byte at a time,
 * and goes on sending when the server ends its side (only a closed connection stops it).
 */
import { connect } from 'node:net';

/** What the server did while the client trickled. */
export interface TrickleOutcome {
  /** True when the server closed the connection (not only its own side) before the client gave up. */
  closedByServer: boolean;
  /** What the server sent. */
  received: string;
}

/**
 * Sends `head` at once, then `tail` one byte every `everyMs`, then waits; gives up (closing the
 * socket itself) after `giveUpMs` in all.
 */
export function trickle(
  port: number,
  head: string,
  tail: string,
  options: { everyMs: number; giveUpMs: number },
): Promise<TrickleOutcome> {
  return new Promise((resolve, reject) => {
    // Half open, as a slowloris keeps it: the server's FIN does not close the client's side.
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    let received = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => finish(false), options.giveUpMs);
    const finish = (closedByServer: boolean) => {
      clearTimeout(giveUp);
      clearInterval(timer);
      socket.destroy();
      resolve({ closedByServer, received });
    };
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (sent < tail.length && socket.writable) socket.write(tail[sent++] ?? '');
      }, options.everyMs);
    });
    socket.on('data', (data) => {
      received += data.toString();
    });
    // With nothing left to send, the server's end is all a client sees of a close; with bytes
    // left, only a closed connection (the next write is refused) counts.
    socket.on('end', () => {
      if (sent >= tail.length) finish(true);
    });
    socket.on('close', () => finish(true));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset by the server is the server closing the connection.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') finish(true);
      else reject(error);
    });
  });
}
