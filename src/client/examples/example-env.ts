/**
 * What the examples read from the environment: a variable that is missing stops the example at
 * once with a line saying what to set, instead of a refusal from the service.
 */

/** The value of `name`, or an exit (code 2) after printing `hint` on stderr. */
export function requireEnv(name: string, hint: string): string {
  const value = process.env[name];
  if (value !== undefined && value !== '') return value;
  console.error(`${name} is not set: ${hint}`);
  process.exit(2);
}

/** The client options of the examples: MARKET_BASE_URL (default `npm start`'s) and MARKET_API_KEY. */
export function exampleClientOptions(): { baseUrl: string; apiKey: string } {
  return {
    baseUrl: process.env.MARKET_BASE_URL ?? 'http://127.0.0.1:8080/v1',
    apiKey: requireEnv(
      'MARKET_API_KEY',
      'set it to a key of the service (npm start prints one; the sandbox makes more with POST /sandbox/accounts)',
    ),
  };
}
