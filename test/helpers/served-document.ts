/** A test service for one test file and the OpenAPI document it serves. */
import { afterAll } from 'vitest';
import type { ServiceOptions } from '../../src/service/service-options.js';
import { startTestService, type TestService } from './service.js';

/**
 * Starts a test service while the file is collected (call it with top-level await), closes it
 * after the file's tests, and reads its `GET /v1/openapi.json`.
 */
export async function serveDocument(
  options: ServiceOptions = { listings: 10 },
): Promise<{ t: TestService; doc: any }> {
  const t = await startTestService(options);
  afterAll(() => t.close());
  return { t, doc: (await t.call('/openapi.json')).body };
}
