import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_REASONS, isReasoned, type Reasoned } from '../../src/config/defaults.js';
import { gatewayConfigSchema } from '../../src/config/schema.js';
import { GATEWAY_KEYS, gatewayRows, reasonFor } from '../../src/docs/config-reference.js';
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

describe('generated docs', () => {
  it.each(GENERATED_PAGES.map((page) => [page.page, page] as const))('%s matches the code it is generated from', (name, page) => {
    const committed = read(name);
    const fresh = regeneratePage(page, committed);
    if (fresh !== committed) expect.fail(`${name} is out of date: run npm run docs (${firstDifference(committed, fresh)})`);
  });

  it('has a region for every top-level key of gateway.yaml', () => {
    expect(GATEWAY_KEYS).toEqual(Object.keys(gatewayConfigSchema.shape));
  });

  it('prints every reason of DEFAULT_REASONS once, beside the key whose default it explains', () => {
    const leaves: Array<Reasoned<string | number | boolean>> = [];
    const walk = (node: unknown): void => {
      if (isReasoned(node)) leaves.push(node);
      else for (const child of Object.values(node as object)) walk(child);
    };
    walk(DEFAULT_REASONS);
    const printed = GATEWAY_KEYS.flatMap(gatewayRows).flatMap((row) => {
      const reason = reasonFor(row.key);
      return reason ? [{ row, reason }] : [];
    });
    for (const { row, reason } of printed) expect(row.default, row.key).toBe(`\`${reason.value}\``);
    expect(printed.map(({ reason }) => reason).sort((a, b) => a.why.localeCompare(b.why))).toEqual(leaves.sort((a, b) => a.why.localeCompare(b.why)));
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
