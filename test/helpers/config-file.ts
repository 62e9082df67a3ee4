import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ConfigError, formatIssue } from '../../src/config/errors.js';
import { loadGatewayConfig } from '../../src/config/load.js';

/** A gateway.yaml holding `text`, in a folder of its own. */
export async function configFile(text: string, name = 'gateway.yaml'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tg-config-'));
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

/** The issues loading `text` as gateway.yaml reports, as operators read them (file:line: key: message), the file named gateway.yaml. */
export async function issuesOf(text: string): Promise<string[]> {
  const file = await configFile(text);
  const error = await loadGatewayConfig(file).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues.map((issue) => formatIssue(issue).replace(file, 'gateway.yaml'));
}
