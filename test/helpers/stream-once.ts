/**
 * A listing-stream client that connects once and never reconnects, so a test sees how the stream
 * ended: cleanly by the service (the response's end) or cut (a reset, an aborted body).
 */
import { createParser } from 'eventsource-parser';
import { expect, vi } from 'vitest';
import type { SeenEvent } from './stream.js';

/** One connection to the stream and what came through it. */
export interface OneStream {
  events: SeenEvent[];
  /** SSE comments, without their leading colon and space. */
  comments: string[];
  /** `ended` when the service ended the response, `cut` when the connection broke first. */
  ended: Promise<'ended' | 'cut'>;
  /** Resolves once `predicate` holds over the events (polling), or rejects after `timeoutMs`. */
  until(predicate: (events: SeenEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens `/listings/stream` with the key (and `lastEventId` when given); resolves once the service answered 200. */
export async function streamOnce(baseUrl: string, key: string, lastEventId?: string): Promise<OneStream> {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const response = await fetch(`${baseUrl}/listings/stream`, { headers, signal: controller.signal });
  if (response.status !== 200 || !response.body) throw new Error(`the stream answered ${response.status}`);
  const events: SeenEvent[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: (e) =>
      events.push({ id: e.id ?? '', type: e.event as SeenEvent['type'], data: JSON.parse(e.data) }),
    onComment: (comment) => comments.push(comment.trim()),
  });
  const body = response.body;
  const ended = (async (): Promise<'ended' | 'cut'> => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body as AsyncIterable<Uint8Array>)
        parser.feed(decoder.decode(chunk, { stream: true }));
      return 'ended';
    } catch {
      return 'cut';
    }
  })();
  return {
    events,
    comments,
    ended,
    until: (predicate, timeoutMs = 20_000) =>
      vi.waitFor(() => expect(predicate(events)).toBe(true), { timeout: timeoutMs, interval: 50 }),
    close: () => controller.abort(),
  };
}
