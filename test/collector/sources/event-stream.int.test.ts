/** The stream source's SSE reading: events across any chunking, the last event id, comments, and stopping. */
import { describe, expect, it } from 'vitest';
import { readEvents, type StreamEvent } from '../../../src/collector/sources/event-stream.js';

const TEXT = [
  ': connected\n\n',
  'id: log-1\nevent: new\ndata: {"name":"★ Karambit"}\n\n',
  ': heartbeat\n\n',
  'event: gone\ndata: {"id":"a"}\n\n',
  'id: log-3\r\nevent: gone\r\ndata: {"id":"b"}\r\n\r\n',
  'event: resync\ndata: {"reason":"last_event_id_expired"}\n\n',
  'id: log-4\nevent: new\ndata: {}\n\n',
].join('');

/** The text as chunks of `size` bytes: multi-byte characters and lines split anywhere. */
async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}

async function read(size: number, stopAt?: string) {
  const events: StreamEvent[] = [];
  let chunkCount = 0;
  const outcome = await readEvents(chunks(TEXT, size), {
    onChunk: () => {
      chunkCount += 1;
    },
    onEvent: (event) => {
      events.push(event);
      return event.type === stopAt;
    },
  });
  return { outcome, events, chunkCount };
}

describe('readEvents', () => {
  it.each([1, 3, 7, 64, 100_000])(
    'reads the same events from chunks of %i bytes, each with the last event id',
    async (size) => {
      const { outcome, events, chunkCount } = await read(size);
      expect(outcome).toBe('ended');
      expect(chunkCount).toBe(Math.ceil(new TextEncoder().encode(TEXT).length / size));
      expect(events).toEqual([
        { type: 'new', lastEventId: 'log-1', data: '{"name":"★ Karambit"}' },
        { type: 'gone', lastEventId: 'log-1', data: '{"id":"a"}' },
        { type: 'gone', lastEventId: 'log-3', data: '{"id":"b"}' },
        { type: 'resync', lastEventId: 'log-3', data: '{"reason":"last_event_id_expired"}' },
        { type: 'new', lastEventId: 'log-4', data: '{}' },
      ]);
    },
  );

  it('stops after the event the reader stops at, and hands on nothing after it', async () => {
    const { outcome, events } = await read(100_000, 'resync');
    expect(outcome).toBe('stopped');
    expect(events.map((e) => e.type)).toEqual(['new', 'gone', 'gone', 'resync']);
  });
});
