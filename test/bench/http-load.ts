/**
 * A closed-loop HTTP/1.1 load generator for benchmarks: keep-alive connections, each sending the
 * next GET as soon as the last answer has arrived. Bodies are counted, never decoded: a client
 * that turns each body into a string spends more CPU on non-ASCII bytes than on ASCII ones, and on
 * a 2-core machine that CPU is taken from the server being measured.
 */
import { connect, type Socket } from 'node:net';
import { percentile } from './fixtures.js';

/** What {@link httpLoad} measured. */
export interface HttpLoadResult {
  /** Answers per second over the run. */
  rps: number;
  /** Answers received. */
  requests: number;
  /** Answers with a status other than 200. */
  failures: number;
  /** Latency percentiles in ms. */
  p50: number;
  p99: number;
}

/** Options of {@link httpLoad}. */
export interface HttpLoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Loads `url` with GETs on `connections` connections for `seconds`. Answers must carry a content-length. */
export async function httpLoad(options: HttpLoadOptions): Promise<HttpLoadResult> {
  const url = new URL(options.url);
  const request = Buffer.from(
    `GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n` +
      Object.entries(options.headers ?? {})
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      '\r\n',
  );
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.connections }, () =>
      connection(Number(url.port), url.hostname, request, deadline, (ms, status) => {
        latencies.push(ms);
        if (status !== 200) failures++;
      }),
    ),
  );
  const elapsed = (performance.now() - started) / 1000;
  return {
    rps: latencies.length / elapsed,
    requests: latencies.length,
    failures,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/** One connection's loop until the deadline; resolves once its last answer is in. */
function connection(
  port: number,
  host: string,
  request: Buffer,
  deadline: number,
  answered: (ms: number, status: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, host);
    socket.setNoDelay(true);
    let head: Buffer = Buffer.alloc(0);
    let bodyLeft = -1;
    let status = 0;
    let sentAt = 0;
    const send = () => {
      if (performance.now() >= deadline) {
        socket.end();
        resolve();
        return;
      }
      sentAt = performance.now();
      socket.write(request);
    };
    socket.on('connect', send);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      let rest: Buffer = chunk;
      while (rest.length > 0) {
        if (bodyLeft < 0) {
          head = head.length === 0 ? rest : Buffer.concat([head, rest]);
          const end = head.indexOf(HEADER_END);
          if (end < 0) return;
          const headers = head.toString('latin1', 0, end);
          status = Number(headers.slice(9, 12));
          const length = /\r\ncontent-length: *(\d+)/i.exec(headers)?.[1];
          if (length === undefined) {
            reject(new Error(`an answer without content-length: ${headers.split('\r\n')[0]}`));
            socket.destroy();
            return;
          }
          bodyLeft = Number(length);
          rest = head.subarray(end + HEADER_END.length);
          head = Buffer.alloc(0);
        }
        const taken = Math.min(bodyLeft, rest.length);
        bodyLeft -= taken;
        rest = rest.subarray(taken);
        if (bodyLeft === 0) {
          bodyLeft = -1;
          answered(performance.now() - sentAt, status);
          send();
        }
      }
    });
  });
}
