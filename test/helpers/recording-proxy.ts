/** An HTTP proxy on loopback that forwards everything to a service and records the bodies of chosen answers. */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded answer: the request's path and query, its status, headers and body bytes. */
export interface RecordedAnswer {
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A started proxy: its base URL (`/v1` of the service through it), what it recorded, and its end. */
export interface RecordingProxy {
  baseUrl: string;
  recorded: RecordedAnswer[];
  close(): Promise<void>;
}

/**
 * Starts a proxy to `origin` that records the answers to the requests whose path `records` picks
 * (whole bodies, as sent); every other request, streams included, passes through unrecorded.
 */
export async function startRecordingProxy(
  origin: string,
  records: (path: string) => boolean,
): Promise<RecordingProxy> {
  const target = new URL(origin);
  const recorded: RecordedAnswer[] = [];
  const server: Server = createServer((req, res) => {
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const path = (req.url ?? '').split('?')[0] ?? '';
        const chunks: Buffer[] = [];
        if (records(path)) answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          if (records(path))
            recorded.push({
              url: req.url ?? '',
              status: answer.statusCode ?? 0,
              headers: answer.headers,
              body: Buffer.concat(chunks),
            });
        });
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    // A client gone (a stream closed, a process killed) ends its request to the service too.
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    recorded,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
