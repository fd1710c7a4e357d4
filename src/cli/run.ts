/**
 * `market run` (`npm start`): the main job on the embedded default. It starts the sandbox service
 * with its simulator on a local database, makes a demo account and key, and runs until interrupted.
 */
import { startService } from '../service/service.js';
import { CliError } from './cli-error.js';
import { stopOnSignal } from './serve.js';

interface RunFlags {
  port?: string;
  db?: string;
  listings?: string;
}

/** Starts everything and prints how to use it. */
export async function run(flags: RunFlags): Promise<void> {
  const port = Number(flags.port ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError('--port must be 0-65535');
  const service = await startService({
    port,
    dbPath: flags.db ?? 'data/market.duckdb',
    listings: Number(flags.listings ?? 20_000),
    sandbox: true,
    logger: { level: 'warn', stream: process.stderr },
  });
  const { rawKey } = await service.context.accounts.createAccount({
    label: 'demo',
    balanceCents: 100_000,
    trading: true,
    appIds: [730, 570, 252490],
  });
  process.stdout.write(
    [
      service.baseUrl,
      `demo API key: ${rawKey}`,
      `try: curl -H "Authorization: Bearer ${rawKey}" "${service.baseUrl}/listings?limit=2"`,
      'press Ctrl-C to stop',
      '',
    ].join('\n'),
  );
  stopOnSignal(() => service.close());
}
