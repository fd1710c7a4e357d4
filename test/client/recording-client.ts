/** A MarketClient for the tests against the service: its waits recorded, none of them on the wall clock. */
import { onTestFinished } from 'vitest';
import { MarketClient } from '../../src/client/index.js';

/** A client of `apiKey` at `baseUrl`, closed when the test ends; `onWait` runs in place of each wait. */
export function recordingClient(
  baseUrl: string,
  apiKey: string,
  onWait: (ms: number) => Promise<void> = async () => undefined,
): { client: MarketClient; waits: number[] } {
  const waits: number[] = [];
  const client = new MarketClient({
    baseUrl,
    apiKey,
    sleep: async (ms) => {
      waits.push(ms);
      await onWait(ms);
    },
  });
  onTestFinished(() => client.close());
  return { client, waits };
}
