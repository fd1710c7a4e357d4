/** Prometheus' own tools in tests: where `prometheus` and `promtool` are installed, else a reason to skip. */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './crash.js';

const run = promisify(execFile);

/** The path of `tool` on PATH, or null (the tests that need it skip, saying so). */
export async function which(tool: string): Promise<string | null> {
  try {
    return (await run('sh', ['-c', `command -v ${tool}`])).stdout.trim() || null;
  } catch {
    return null;
  }
}

/** Runs `promtool <args>`, feeding it `input`; its exit code and output. */
export async function promtool(args: string[], input?: string) {
  const child = spawn('promtool', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  child.stdin.end(input ?? '');
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

/** A Prometheus server on 127.0.0.1 scraping one target. */
export interface TestPrometheus {
  /** `http://127.0.0.1:<port>` of its HTTP API. */
  origin: string;
  /** The end of its log, for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts Prometheus in `dir` on a free loopback port, scraping `127.0.0.1:<targetPort>/metrics`
 * every second with the token of `tokenFile` as a Bearer credential (`credentials_file`), and
 * evaluating the rules of `rulesFile` (if given) every second.
 */
export async function startPrometheus(
  dir: string,
  targetPort: number,
  tokenFile: string,
  rulesFile?: string,
): Promise<TestPrometheus> {
  await writeFile(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      '  evaluation_interval: 1s',
      ...(rulesFile ? [`rule_files: ['${rulesFile}']`] : []),
      'scrape_configs:',
      '  - job_name: market_collector',
      '    authorization:',
      `      credentials_file: ${tokenFile}`,
      '    static_configs:',
      `      - targets: ['127.0.0.1:${targetPort}']`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (d) => {
    log = (log + d).slice(-4000);
  });
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    log: () => log,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** The state of each active alert named `name` (`pending` or `firing`), through Prometheus' API. */
export async function alertStates(origin: string, name: string): Promise<string[]> {
  const response = await fetch(`${origin}/api/v1/alerts`);
  const body = (await response.json()) as {
    data: { alerts: { labels: { alertname: string }; state: string }[] };
  };
  return body.data.alerts.filter((a) => a.labels.alertname === name).map((a) => a.state);
}

/** The value of an instant PromQL query (first series), or null while it has none. */
export async function promQuery(origin: string, query: string): Promise<number | null> {
  try {
    const response = await fetch(`${origin}/api/v1/query?query=${encodeURIComponent(query)}`);
    const body = (await response.json()) as { data?: { result?: { value: [number, string] }[] } };
    const first = body.data?.result?.[0];
    return first ? Number(first.value[1]) : null;
  } catch {
    return null;
  }
}
