/**
 * The image's HEALTHCHECK: GET the admin listener's /livez with Node's own
 * fetch, since the slim base image has no curl or wget. Exit 0 when it
 * answers 2xx within the timeout, 1 otherwise (what Docker expects).
 * TOKEN_GATEWAY_HEALTHCHECK_URL points it elsewhere: another admin port, or
 * a container of the same image that runs something else (the demo upstream).
 */
const DEFAULT_URL = 'http://127.0.0.1:9901/livez';
// Below Docker's own --timeout (3 s in the Dockerfile), so the probe reports why it failed.
const TIMEOUT_MS = 2_000;

const url = process.env.TOKEN_GATEWAY_HEALTHCHECK_URL || DEFAULT_URL;
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  await response.body?.cancel();
  if (!response.ok) process.stderr.write(`healthcheck: ${url} answered ${response.status}\n`);
  process.exitCode = response.ok ? 0 : 1;
} catch (error) {
  process.stderr.write(`healthcheck: ${url}: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
