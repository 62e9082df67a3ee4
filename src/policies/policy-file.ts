import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from '../config/zod.js';
import { ConfigError, keyPath, type ConfigIssue } from '../config/errors.js';
import { lineOfKey, loadYamlFile } from '../config/yaml-file.js';
import { POLICY_KINDS } from './kinds.js';
import type { PolicyKind, PolicyMode } from './policy.js';

const KIND_BY_NAME: ReadonlyMap<string, PolicyKind> = new Map(POLICY_KINDS.map((kind) => [kind.kind, kind as PolicyKind]));

/** One validated policy entry: its kind and its settings as that kind's schema produced them. */
export interface PolicyDefinition {
  readonly name: string;
  readonly kind: PolicyKind;
  readonly mode: PolicyMode;
  readonly settings: unknown;
  /** Where it was defined, for messages that point at it. */
  readonly file: string;
  readonly index: number;
}

/**
 * An entry is validated by the schema of its `kind`; the kind's issues keep
 * their paths under `policies[i]`, so they are reported at the right line.
 */
const policyEntry = z.unknown().transform((value, ctx) => {
  const kindName = (value as { kind?: unknown } | null)?.kind;
  const kind = typeof kindName === 'string' ? KIND_BY_NAME.get(kindName) : undefined;
  if (!kind) {
    const known = [...KIND_BY_NAME.keys()].join(', ');
    ctx.addIssue({
      code: 'custom',
      path: typeof value === 'object' && value !== null && 'kind' in value ? ['kind'] : [],
      message: kindName === undefined ? `expected a policy with a kind (${known})` : `unknown kind "${String(kindName)}"; expected one of ${known}`,
    });
    return z.NEVER;
  }
  const parsed = kind.schema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue });
    return z.NEVER;
  }
  return { kind, settings: parsed.data as { name: string; mode: PolicyMode } };
});

/** A file that is one policy's keys at the top level: its own `unknown key` lines alone would not say what is wrong. */
const looksLikeOnePolicy = (value: unknown): boolean => typeof value === 'object' && value !== null && 'name' in value && 'kind' in value;

export const policyFileSchema = z.preprocess(
  (value, ctx) => {
    if (looksLikeOnePolicy(value)) {
      ctx.addIssue({ code: 'custom', message: 'a policy file holds a list under "policies:" (policies:, then "- name: ..." for each policy)' });
    }
    return value;
  },
  z.strictObject({
    policies: z.array(policyEntry).default([]).describe('The named policies this file declares.'),
  }),
);

const isPolicyFile = (name: string): boolean => !name.startsWith('.') && /\.ya?ml$/i.test(name);

/**
 * Every policy of every `*.yaml` / `*.yml` file in the folder (in name order;
 * hidden files such as editor swap files and Kubernetes' `..data` are
 * skipped). All problems of all files are reported together; names must be
 * unique across files. A folder that does not exist holds no policies.
 */
export async function readPolicyFolder(folder: string): Promise<PolicyDefinition[]> {
  const files = await policyFilesIn(folder);
  const definitions: PolicyDefinition[] = [];
  const issues: ConfigIssue[] = [];
  const definedIn = new Map<string, string>();
  for (const file of files) {
    try {
      const { policies } = await loadYamlFile(file, policyFileSchema);
      for (const [index, { kind, settings }] of policies.entries()) {
        const earlier = definedIn.get(settings.name);
        if (earlier) {
          const path = ['policies', index, 'name'];
          issues.push({ file, line: await lineOfKey(file, path), key: keyPath(path), message: `"${settings.name}" is already defined in ${earlier}` });
          continue;
        }
        definedIn.set(settings.name, file);
        definitions.push({ name: settings.name, kind, mode: settings.mode, settings, file, index });
      }
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return definitions;
}

async function policyFilesIn(folder: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new ConfigError([{ file: folder, key: '', message: `cannot read the policies folder (${(error as NodeJS.ErrnoException).code ?? 'error'})` }]);
  }
  const files: string[] = [];
  for (const name of names.filter(isPolicyFile).sort()) {
    const file = join(folder, name);
    // stat follows symlinks (ConfigMap mounts link every file into ..data/).
    if ((await stat(file).catch(() => undefined))?.isFile()) files.push(file);
  }
  return files;
}
