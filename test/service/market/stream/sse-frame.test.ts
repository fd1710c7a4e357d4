/** The listing stream's frames: written field by field, and the same text live (TypeScript) and replayed (DuckDB). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, type LogEvent } from '../../../../src/service/market/stream/event-log.js';
import { sseFrame } from '../../../../src/service/market/stream/sse-frame.js';
import { frameOf, resyncFrame } from '../../../../src/service/market/stream/stream-session.js';
import { Database } from '../../../../src/shared/database.js';
import { projectPath } from '../../../../src/shared/project-root.js';

describe('sseFrame', () => {
  it.each([
    [
      { id: 'abcdefgh-7', event: 'new', data: '{"id":"x"}' },
      'id: abcdefgh-7\nevent: new\ndata: {"id":"x"}\n\n',
    ],
    [{ id: 'abcdefgh-0', event: 'resync', data: '{}' }, 'id: abcdefgh-0\nevent: resync\ndata: {}\n\n'],
  ])('writes %o as its field lines and a blank line', (parts, frame) => {
    expect(sseFrame(parts)).toBe(frame);
  });

  it('writes a resync notice with the id to resume from, and its reason and detail as JSON data', () => {
    expect(resyncFrame('re-read', 'abcdefgh-12')).toBe(
      'id: abcdefgh-12\nevent: resync\ndata: {"reason":"last_event_id_expired","detail":"re-read"}\n\n',
    );
  });
});

describe('EventLog.framesOf', () => {
  let db: Database;
  beforeEach(async () => {
    db = await Database.open(':memory:', projectPath('sql', 'service'));
  });
  afterEach(() => db.close());

  it('replays exactly the frames the live stream writes, for new and gone events of one game', async () => {
    const log = await EventLog.open(db);
    const event = (position: number, kind: 'new' | 'gone', appId: number, listingId: string): LogEvent => ({
      position,
      kind,
      appId,
      listingId,
      listing: kind === 'new' ? JSON.stringify({ id: listingId, name: 'StatTrak™ "Quoted" \\ AK' }) : null,
      at: 1_700_000_000_000 + position,
    });
    const events = [
      event(1, 'new', 730, 'cs2-1'),
      event(2, 'new', 570, 'dota-1'),
      event(3, 'gone', 730, 'cs2-"odd"\\id'),
      event(4, 'gone', 730, 'cs2-1'),
    ];
    await db.transaction((tx) => log.write(tx, events));
    log.committed(events);

    const live = events.filter((e) => e.appId === 730).map((e) => frameOf(e, log.eventId(e.position)));
    expect(await log.framesOf(730, 0, 4)).toEqual(live);
    expect(live[1]).toBe(`id: ${log.eventId(3)}\nevent: gone\ndata: {"id":"cs2-\\"odd\\"\\\\id"}\n\n`);
  });
});
