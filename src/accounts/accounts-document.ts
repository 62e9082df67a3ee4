import { isMap, isScalar, isSeq, parseDocument, YAMLSeq, type Document, type Node, type YAMLMap } from 'yaml';
import { parseYamlText } from '../config/yaml-file.js';
import { accountsSchema } from './schema.js';
import { applyPatches, parsesTo, scalarText, type ScalarStyle, type TextPatch } from './yaml-patch.js';

export type AccountKind = 'user' | 'app';

const SHAPE = {
  user: { list: 'users', name: 'username', hash: 'password_hash' },
  app: { list: 'apps', name: 'client_id', hash: 'client_secret_hash' },
} as const;

export interface NewAccount {
  name: string;
  /** argon2id PHC string; never the secret. */
  hash: string;
  status: string;
  policies?: readonly string[];
}

/** An edit that the file's current content does not allow (a duplicate, an unknown name). */
export class AccountEditRefused extends Error {
  override readonly name = 'AccountEditRefused';
}

const STYLE_OF: Partial<Record<string, ScalarStyle>> = { PLAIN: 'plain', QUOTE_DOUBLE: 'double', QUOTE_SINGLE: 'single' };

type Field = readonly [key: string, value: string | readonly string[]];

/**
 * accounts.yaml as the operator wrote it, edited in place. Every edit is made
 * twice: on the yaml Document (which keeps comments) and as a patch of the
 * original text (which also keeps blank lines, indentation and quoting, so the
 * operator's diff shows only the edited line). The patched text is used only
 * if it parses back to exactly the Document's data; otherwise the Document is
 * rendered whole, comments still in place.
 */
export class AccountsDocument {
  private readonly patches: TextPatch[] = [];
  private patchable = true;
  private edited = false;

  private constructor(
    private readonly text: string,
    private readonly document: Document,
  ) {}

  /** Refuses a file that is not valid already (ConfigError with file:line:key): an edit must not build on a broken file. */
  static parse(text: string, file: string): AccountsDocument {
    parseYamlText(text, file, accountsSchema);
    return new AccountsDocument(text, parseDocument(text, { uniqueKeys: true }));
  }

  get changed(): boolean {
    return this.edited;
  }

  has(kind: AccountKind, name: string): boolean {
    return this.entry(kind, name) !== undefined;
  }

  /** The status of an existing entry; refuses an unknown name. */
  statusOf(kind: AccountKind, name: string): string {
    return String(this.existing(kind, name).get('status'));
  }

  assertAbsent(kind: AccountKind, name: string): void {
    if (this.has(kind, name)) throw new AccountEditRefused(`${kind} ${name} already exists`);
  }

  add(kind: AccountKind, account: NewAccount): void {
    this.assertAbsent(kind, account.name);
    const shape = SHAPE[kind];
    const fields: Field[] = [
      [shape.name, account.name],
      [shape.hash, account.hash],
      ['status', account.status],
    ];
    if (account.policies && account.policies.length > 0) fields.push(['policies', account.policies]);
    const list = this.list(kind);
    const last = list?.items.at(-1);
    // A new entry looks like the one before it: one-line flow maps stay one-line.
    const flow = isMap(last) && last.flow === true;
    this.patchAppend(list, last, fields, flow);
    this.appendNode(kind, fields, flow);
    this.edited = true;
  }

  /** Sets the status or the secret's hash of an existing entry; setting the same value changes nothing. */
  set(kind: AccountKind, name: string, field: 'status' | 'hash', value: string): void {
    const entry = this.existing(kind, name);
    const key = field === 'hash' ? SHAPE[kind].hash : 'status';
    const node = entry.get(key, true) as Node | undefined;
    if (isScalar(node) && node.value === value) return;
    this.patchScalar(node, value, field === 'hash' ? 'double' : undefined);
    if (isScalar(node)) node.value = value;
    else entry.set(key, value);
    this.edited = true;
  }

  /** The edited file's text: the patched original when it reads back the same, else the Document rendered whole. */
  render(): string {
    const expected: unknown = this.document.toJS();
    if (this.patchable) {
      const patched = applyPatches(this.text, this.patches);
      if (parsesTo(patched, expected)) return patched;
    }
    // lineWidth 0: never fold the long hash strings onto continuation lines.
    const rendered = this.document.toString({ lineWidth: 0 });
    if (!parsesTo(rendered, expected)) throw new Error('the edited accounts file does not read back as the data it was given');
    return rendered;
  }

  private list(kind: AccountKind): YAMLSeq | undefined {
    const node: unknown = this.document.get(SHAPE[kind].list, true);
    return isSeq(node) ? node : undefined;
  }

  private entry(kind: AccountKind, name: string): YAMLMap | undefined {
    return this.list(kind)?.items.find((item): item is YAMLMap => isMap(item) && item.get(SHAPE[kind].name) === name);
  }

  private existing(kind: AccountKind, name: string): YAMLMap {
    const entry = this.entry(kind, name);
    if (!entry) throw new AccountEditRefused(`there is no ${kind} ${name}`);
    return entry;
  }

  private appendNode(kind: AccountKind, fields: readonly Field[], flow: boolean): void {
    const node = this.document.createNode(Object.fromEntries(fields)) as YAMLMap;
    node.flow = flow;
    const hash: unknown = node.get(SHAPE[kind].hash, true);
    if (isScalar(hash)) hash.type = 'QUOTE_DOUBLE';
    const policies: unknown = node.get('policies', true);
    if (isSeq(policies)) policies.flow = true;
    let list = this.list(kind);
    if (!list) {
      list = new YAMLSeq();
      if (this.document.contents === null) this.document.contents = this.document.createNode({});
      this.document.set(SHAPE[kind].list, list);
    }
    // `users: []` grows into a block list rather than one long flow line.
    if (list.items.length === 0) list.flow = false;
    list.items.push(node);
  }

  /** The new entry as text, on the line after the last entry, indented like it. */
  private patchAppend(list: YAMLSeq | undefined, last: unknown, fields: readonly Field[], flow: boolean): void {
    if (!list || list.flow || !isMap(last) || !last.range) return this.notPatchable();
    const lineStart = this.text.lastIndexOf('\n', last.range[0] - 1) + 1;
    const prefix = this.text.slice(lineStart, last.range[0]);
    if (!/^ *- +$/.test(prefix)) return this.notPatchable();
    const pairs = fields.map(([key, value]) => `${key}: ${fieldText(key, value)}`);
    const body = flow ? `{ ${pairs.join(', ')} }` : pairs.join(`\n${' '.repeat(prefix.length)}`);
    const lineEnd = this.text.indexOf('\n', last.range[1] - 1);
    if (lineEnd === -1) this.patches.push({ start: this.text.length, end: this.text.length, text: `\n${prefix}${body}` });
    else this.patches.push({ start: lineEnd + 1, end: lineEnd + 1, text: `${prefix}${body}\n` });
  }

  private patchScalar(node: Node | undefined, value: string, style: ScalarStyle | undefined): void {
    const original = isScalar(node) ? STYLE_OF[node.type ?? ''] : undefined;
    if (!isScalar(node) || !node.range || !original) return this.notPatchable();
    this.patches.push({ start: node.range[0], end: node.range[1], text: scalarText(value, style ?? original) });
  }

  private notPatchable(): void {
    this.patchable = false;
  }
}

function fieldText(key: string, value: string | readonly string[]): string {
  if (typeof value !== 'string') return `[${value.map((item) => scalarText(item)).join(', ')}]`;
  // Hashes are double-quoted as docs/configuration.md shows them: `$`, `,` and `=` are safe there in any context.
  return scalarText(value, key.endsWith('_hash') ? 'double' : 'plain');
}
