/**
 * Child process of the stream benchmark: opens N streams and records when each event arrives.
 * The parent writes `<event id> <commit epoch ms>` lines on stdin as events commit; at the end of
 * stdin this prints `{ p50, p99, received, matched }` of receipt minus commit, in ms.
 * Usage: stream-readers.ts <stream url> <streams> <key,key,…>
 */
import { createInterface } from 'node:readline';

const [url, countText, keyList] = process.argv.slice(2);
const keys = (keyList ?? '').split(',');
const count = Number(countText);
const committed = new Map<string, number>();
const latencies: number[] = [];
const early = new Map<string, number[]>();
let received = 0;

function onEvent(id: string): void {
  received++;
  const now = Date.now();
  const at = committed.get(id);
  if (at === undefined) early.set(id, [...(early.get(id) ?? []), now]);
  else latencies.push(now - at);
}

const controllers = Array.from({ length: count }, () => new AbortController());
controllers.forEach((controller, i) => {
  void follow(keys[Math.floor(i / 3)] as string, controller.signal);
});

createInterface({ input: process.stdin })
  .on('line', (line) => {
    const [id, at] = line.split(' ');
    committed.set(id as string, Number(at));
    for (const seen of early.get(id as string) ?? []) latencies.push(seen - Number(at));
    early.delete(id as string);
  })
  .on('close', () => {
    for (const c of controllers) c.abort();
    latencies.sort((a, b) => a - b);
    const pick = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? -1;
    process.stdout.write(
      `${JSON.stringify({ p50: pick(0.5), p99: pick(0.99), received, matched: latencies.length })}\n`,
    );
    process.exit(0);
  });

async function follow(key: string, signal: AbortSignal): Promise<void> {
  try {
    const response = await fetch(url as string, { headers: { authorization: `Bearer ${key}` }, signal });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let start = buffer.indexOf('id: ');
      while (start >= 0) {
        const end = buffer.indexOf('\n', start);
        if (end < 0) break;
        onEvent(buffer.slice(start + 4, end));
        buffer = buffer.slice(end);
        start = buffer.indexOf('id: ');
      }
      if (start < 0) buffer = '';
    }
  } catch {
    // aborted at the end, or the stream was dropped: both end this reader
  }
}
