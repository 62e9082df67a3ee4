import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { gatewayConfigSchema } from '../../src/config/schema.js';
import { GENERATED_PAGES, regeneratePage } from '../../src/docs/pages.js';
import { POLICY_KINDS } from '../../src/policies/kinds.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** The first line where two texts differ, to say where a page went stale. */
function firstDifference(committed: string, fresh: string): string {
  const before = committed.split('\n');
  const after = fresh.split('\n');
  const index = after.findIndex((line, at) => line !== before[at]);
  return `line ${index + 1}: the code says ${JSON.stringify(after[index] ?? '')}, the page has ${JSON.stringify(before[index] ?? '')}`;
}

/** The YAML block that follows a `<!-- example:NAME -->` marker. */
function examples(page: string, name: string): string[] {
  const marker = `<!-- example:${name} -->\n\`\`\`yaml\n`;
  return read(page)
    .split(marker)
    .slice(1)
    .map((rest) => rest.slice(0, rest.indexOf('\n```')));
}

/**
 * The committed pages against the code, and their examples against the
 * schemas. How each table is made: test/docs/<module>.test.ts.
 */
describe('generated docs', () => {
  it.each(GENERATED_PAGES.map((page) => [page.page, page] as const))('%s matches the code it is generated from', (name, page) => {
    const committed = read(name);
    const fresh = regeneratePage(page, committed);
    if (fresh !== committed) expect.fail(`${name} is out of date: run npm run docs (${firstDifference(committed, fresh)})`);
  });
});

describe('examples in the docs', () => {
  it('loads the complete gateway.yaml of docs/configuration.md', () => {
    const [example] = examples('docs/configuration.md', 'gateway.yaml');
    const result = gatewayConfigSchema.safeParse(parse(example ?? ''));
    expect(result.success, result.error?.message).toBe(true);
  });

  it('loads every example of docs/policies.md with the schema of its kind', () => {
    const found = examples('docs/policies.md', 'policies');
    expect(found.length).toBeGreaterThanOrEqual(1);
    for (const example of found) {
      const { policies } = parse(example) as { policies: Array<{ kind?: string }> };
      for (const entry of policies) {
        const kind = POLICY_KINDS.find((each) => each.kind === entry.kind);
        const result = kind?.schema.safeParse(entry);
        expect(result?.success, result?.error?.message ?? `unknown kind ${entry.kind}`).toBe(true);
      }
    }
  });

  it.each(POLICY_KINDS.map((kind) => [kind.kind, kind] as const))('loads every example of docs/policies/%s.md with its schema', (name, kind) => {
    const found = examples(`docs/policies/${name}.md`, 'policies');
    expect(found.length).toBeGreaterThanOrEqual(1);
    for (const example of found) {
      const { policies } = parse(example) as { policies: unknown[] };
      for (const entry of policies) {
        const result = kind.schema.safeParse(entry);
        expect(result.success, result.error?.message).toBe(true);
      }
    }
  });
});
