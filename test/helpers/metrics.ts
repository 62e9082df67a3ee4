import { eventually } from './eventually.js';

/** One sample line of the text exposition format. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A parsed scrape. */
export class Scrape {
  constructor(
    readonly samples: readonly Sample[],
    readonly text: string,
    readonly contentType: string | null,
  ) {}

  /** The sum of every sample of `name` whose labels include `labels` (0 when there is none). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.matching(name, labels).reduce((sum, sample) => sum + sample.value, 0);
  }

  /** Whether a sample of `name` with these labels exists at all. */
  has(name: string, labels: Record<string, string> = {}): boolean {
    return this.matching(name, labels).length > 0;
  }

  /** The `# TYPE` of a metric family. */
  typeOf(name: string): string | undefined {
    return new RegExp(`^# TYPE ${name} (\\w+)$`, 'm').exec(this.text)?.[1];
  }

  private matching(name: string, labels: Record<string, string>): Sample[] {
    return this.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  }
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses Prometheus's text format (version 0.0.4), strictly enough that a malformed line fails the test. */
export function parseExposition(text: string, contentType: string | null = null): Scrape {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return new Scrape(samples, text, contentType);
}

export async function scrape(adminUrl: string): Promise<Scrape> {
  const response = await fetch(`${adminUrl}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${await response.text()}`);
  return parseExposition(await response.text(), response.headers.get('content-type'));
}

/**
 * Scrapes until `token_gateway_requests_total` has counted at least
 * `requests` in all: a request is counted once its response is over, which
 * the gateway may see a moment after the client has read it. Bounded.
 */
export function scrapeCounted(adminUrl: string, requests: number, timeoutMs = 5_000): Promise<Scrape> {
  let counted = 0;
  return eventually(
    async () => {
      const scraped = await scrape(adminUrl);
      counted = scraped.value('token_gateway_requests_total');
      return counted >= requests && scraped;
    },
    { timeoutMs, what: () => `at least ${requests} requests counted (counted: ${counted})` },
  );
}
