import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { zipSync, type ZipOptions } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleError, readBundle, type Bundle } from '../../../src/migration/apigee/bundle.js';

/**
 * The bundle reader: Apigee's folders and zips, read into memory, with
 * every zip entry name checked before anything is inflated and sizes held
 * to bounds (zip-slip, zip bombs). Real files in a temp folder; zips are
 * made here with fflate, the library the reader uses.
 */
const MiB = 1024 * 1024;
const MAX_ENTRY_BYTES = 4 * MiB;
const PROXY = '<APIProxy name="orders"/>';
const POLICY = '<SpikeArrest name="SA"><Rate>10ps</Rate></SpikeArrest>';

let work: string;
let made = 0;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tg-bundle-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

type Entries = Record<string, string | Uint8Array | [Uint8Array, ZipOptions]>;

/** A zip of these entries, as bytes. */
function zipOf(entries: Entries): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(entries).map(([name, data]) => [name, typeof data === 'string' ? Buffer.from(data) : data])));
}

/** Writes bytes (or a zip of entries) into the work folder under a fresh name. */
async function file(bytes: Uint8Array | Entries, name = 'bundle.zip'): Promise<string> {
  const path = join(work, `${++made}`, name);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes instanceof Uint8Array ? bytes : zipOf(bytes));
  return path;
}

/** Writes files under a fresh folder; returns the folder. */
async function folder(files: Record<string, string>): Promise<string> {
  const root = join(work, `${++made}`, 'orders');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

/**
 * The same zip with `name`'s size in the central directory (what fflate's
 * filter sees before inflating) rewritten to `size`: an archive that lies.
 */
function declaring(zip: Uint8Array, name: string, size: number): Uint8Array {
  const bytes = Buffer.from(zip);
  for (let at = bytes.length - 22; at >= 0; at--) {
    if (bytes.readUInt32LE(at) !== 0x02014b50) continue;
    const length = bytes.readUInt16LE(at + 28);
    if (bytes.subarray(at + 46, at + 46 + length).toString('utf8') === name) {
      bytes.writeUInt32LE(size, at + 24);
      return bytes;
    }
  }
  throw new Error(`no central directory entry ${name}`);
}

/** The refusal's message, or 'read' with the bundle's files. */
const outcome = (source: string): Promise<string | Bundle> =>
  readBundle(source).catch((error: unknown) => {
    if (error instanceof BundleError) return `refused: ${error.message}`;
    throw error;
  });

const refusal = async (source: string): Promise<string> => {
  const result = await outcome(source);
  if (typeof result !== 'string') throw new Error(`read ${[...result.files.keys()].join(', ')}`);
  return result;
};

describe('migration/apigee/bundle: reading a bundle', () => {
  it('reads a folder holding apiproxy/, by path inside the bundle, XML files only, named by its descriptor', async () => {
    const root = await folder({ 'apiproxy/orders-v1.xml': PROXY, 'apiproxy/policies/SA.xml': POLICY, 'apiproxy/resources/jsc/check.js': 'x', 'README.md': '#' });
    const bundle = await readBundle(root);
    expect({ kind: bundle.kind, name: bundle.name, files: [...bundle.files.keys()].sort() }).toEqual({ kind: 'apiproxy', name: 'orders-v1', files: ['orders-v1.xml', 'policies/SA.xml'] });
    expect(bundle.files.get('policies/SA.xml')).toBe(POLICY);
    expect(bundle.displayPath('policies/SA.xml')).toBe(join(root, 'apiproxy', 'policies', 'SA.xml'));
  });

  it('reads the apiproxy/ folder itself as the same bundle', async () => {
    const root = await folder({ 'apiproxy/orders-v1.xml': PROXY, 'apiproxy/policies/SA.xml': POLICY });
    const bundle = await readBundle(join(root, 'apiproxy'));
    expect({ kind: bundle.kind, name: bundle.name, files: [...bundle.files.keys()].sort() }).toEqual({ kind: 'apiproxy', name: 'orders-v1', files: ['orders-v1.xml', 'policies/SA.xml'] });
  });

  it('names the files of the apiproxy/ folder given itself once: <bundle>/apiproxy/policies/SA.xml, not apiproxy/apiproxy/', async () => {
    const root = await folder({ 'apiproxy/orders-v1.xml': PROXY, 'apiproxy/policies/SA.xml': POLICY });
    const bundle = await readBundle(join(root, 'apiproxy'));
    expect(bundle.displayPath('policies/SA.xml')).toBe(join(root, 'apiproxy', 'policies', 'SA.xml'));
    expect((await readBundle(`${join(root, 'apiproxy')}/`)).displayPath('policies/SA.xml')).toBe(join(root, 'apiproxy', 'policies', 'SA.xml'));
  });

  it('reads a shared flow bundle (sharedflowbundle/)', async () => {
    const root = await folder({ 'sharedflowbundle/threats.xml': '<SharedFlowBundle name="threats"/>', 'sharedflowbundle/sharedflows/default.xml': '<SharedFlow name="default"/>' });
    expect(await readBundle(root)).toMatchObject({ kind: 'sharedflowbundle', name: 'threats' });
  });

  it.each<[string, Record<string, string>, string]>([
    ['without a descriptor, by the folder\'s name', { 'apiproxy/policies/SA.xml': POLICY }, 'orders'],
    ['by the descriptor at the top of apiproxy/, not a file deeper down', { 'apiproxy/policies/SA.xml': POLICY, 'apiproxy/real-name.xml': PROXY }, 'real-name'],
  ])('names a folder bundle %s', async (_how, files, name) => {
    expect((await readBundle(await folder(files))).name).toBe(name);
  });

  it.each<[string, string, Entries, string]>([
    ['by its descriptor', 'orders.zip', { 'apiproxy/orders-v1.xml': PROXY }, 'orders-v1'],
    ['without a descriptor, by the zip\'s name', 'orders-v2.ZIP', { 'apiproxy/policies/SA.xml': POLICY }, 'orders-v2'],
  ])('names a zip bundle %s', async (_how, name, entries, expected) => {
    expect((await readBundle(await file(entries, name))).name).toBe(expected);
  });

  it('reads a zip as Apigee exports it: the XML entries under apiproxy/, nothing written to disk', async () => {
    const zip = await file({ 'apiproxy/orders.xml': PROXY, 'apiproxy/policies/SA.xml': POLICY, 'apiproxy/resources/jsc/a.js': 'x', 'notes.xml': '<n/>' });
    const bundle = await readBundle(zip);
    expect([...bundle.files.keys()].sort()).toEqual(['orders.xml', 'policies/SA.xml']);
    expect(bundle.files.get('policies/SA.xml')).toBe(POLICY);
    expect(bundle.displayPath('policies/SA.xml')).toBe(join(zip, 'apiproxy', 'policies', 'SA.xml'));
  });

  it('reads a zip of the bundle\'s folder (zip -r x.zip re1): every entry under one folder that holds apiproxy/', async () => {
    const zip = await file({ 're1/apiproxy/re1.xml': PROXY, 're1/apiproxy/policies/SA.xml': POLICY, 're1/README.md': 'x' });
    const bundle = await readBundle(zip);
    expect({ kind: bundle.kind, name: bundle.name, files: [...bundle.files.keys()].sort() }).toEqual({ kind: 'apiproxy', name: 're1', files: ['policies/SA.xml', 're1.xml'] });
    expect(bundle.displayPath('policies/SA.xml')).toBe(join(zip, 're1', 'apiproxy', 'policies', 'SA.xml'));
    expect((await readBundle(await file({ 'threats/sharedflowbundle/threats.xml': '<SharedFlowBundle/>' }))).kind).toBe('sharedflowbundle');
  });

  it.each<[string, Entries, RegExp]>([
    ['entries under two folders', { 're1/apiproxy/re1.xml': PROXY, 're2/apiproxy/re2.xml': PROXY }, /not an Apigee bundle/],
    ['an entry beside the one folder', { 're1/apiproxy/re1.xml': PROXY, 'extra.xml': '<x/>' }, /not an Apigee bundle/],
    ['one folder holding no bundle', { 're1/policies/SA.xml': POLICY }, /not an Apigee bundle/],
    ['a bundle two folders down', { 'a/b/apiproxy/b.xml': PROXY }, /not an Apigee bundle/],
    ['a ".." segment under the one folder', { 're1/apiproxy/re1.xml': PROXY, 're1/apiproxy/../../evil.xml': '<x/>' }, /zip-slip/],
    ['a backslash under the one folder', { 're1/apiproxy/re1.xml': PROXY, 're1\\apiproxy\\SA.xml': POLICY }, /a backslash/],
    ['an absolute path beside the one folder', { 're1/apiproxy/re1.xml': PROXY, '/re1/apiproxy/SA.xml': POLICY }, /an absolute path/],
  ])('refuses a zip of a folder with %s', async (_case, entries, message) => {
    expect(await refusal(await file(entries))).toMatch(message);
  });

  it.each<[string, () => Promise<string>, RegExp]>([
    ['a path that does not exist', async () => join(work, 'nowhere'), /no such file or folder/],
    ['a folder with neither apiproxy/ nor sharedflowbundle/', () => folder({ 'policies/SA.xml': POLICY }), /not an Apigee bundle/],
    ['a folder with both', () => folder({ 'apiproxy/a.xml': PROXY, 'sharedflowbundle/b.xml': '<SharedFlowBundle/>' }), /holds both apiproxy\/ and sharedflowbundle\/; import them as two bundles/],
    ['a zip with both', () => file({ 'apiproxy/a.xml': PROXY, 'sharedflowbundle/b.xml': '<SharedFlowBundle/>' }), /holds both/],
    ['a zip of no bundle', () => file({ 'policies/SA.xml': POLICY }), /not an Apigee bundle/],
    ['a file that is not a zip', () => file(Buffer.from('<APIProxy/>'), 'orders.xml'), /not a readable zip/],
    ['an empty file', () => file(new Uint8Array(0)), /not a readable zip/],
  ])('refuses %s', async (_what, make, message) => {
    expect(await refusal(await make())).toMatch(message);
  });
});

describe('migration/apigee/bundle: a zip is checked before anything is inflated', () => {
  it.each<[string, string, RegExp]>([
    // [case, the hostile entry's name, the refusal]
    ['a ".." segment (zip-slip)', '../../etc/evil.xml', /entry "\.\.\/\.\.\/etc\/evil\.xml": a "\.\." segment \(zip-slip\)/],
    ['a ".." segment inside the bundle', 'apiproxy/policies/../../../evil.xml', /zip-slip/],
    ['a ".." segment last', 'apiproxy/..', /zip-slip/],
    ['a ".." segment in an entry that is not XML', 'apiproxy/../../.bashrc', /zip-slip/],
    ['an absolute path', '/etc/cron.d/evil.xml', /an absolute path/],
    ['a Windows drive path', 'C:/Windows/evil.xml', /an absolute path/],
    ['a Windows drive-relative path', 'c:evil.xml', /an absolute path/],
    ['a backslash', 'apiproxy\\policies\\SA.xml', /a backslash in an entry name/],
    ['a ".." segment written with backslashes', '..\\..\\evil.xml', /a backslash/],
    ['a NUL', 'apiproxy/policies/SA.xml\u0000.txt', /a NUL in an entry name/],
  ])('refuses the whole archive for an entry with %s', async (_case, name, message) => {
    const zip = await file({ 'apiproxy/orders.xml': PROXY, 'apiproxy/policies/SA.xml': POLICY, [name]: '<x/>' });
    expect(await refusal(zip)).toMatch(message);
  });

  it.each([
    ['dots inside a name', 'apiproxy/policies/SA..v2.xml'],
    ['a segment of three dots', 'apiproxy/.../SA.xml'],
    ['a segment starting with two dots', 'apiproxy/..hidden/SA.xml'],
  ])('reads an entry with %s: only a whole ".." segment climbs', async (_case, name) => {
    const bundle = await readBundle(await file({ 'apiproxy/orders.xml': PROXY, [name]: POLICY }));
    expect(bundle.files.get(name.slice('apiproxy/'.length))).toBe(POLICY);
  });

  it('refuses more than 5,000 entries (counting entries that are not XML), and reads 5,000', async () => {
    const entries = (count: number): Entries => Object.fromEntries([['apiproxy/orders.xml', PROXY], ...Array.from({ length: count - 1 }, (_, i) => [`apiproxy/resources/r${i}.txt`, 'x'])]);
    expect(await refusal(await file(entries(5_001)))).toMatch(/refused, more than 5000 entries/);
    expect((await readBundle(await file(entries(5_000)))).files.size).toBe(1);
  });

  it('reads an entry of 4 MiB, and refuses one of a byte more', async () => {
    const policy = (size: number) => Buffer.from(`<Javascript name="big"><Source>${'a'.repeat(size - 53)}</Source></Javascript>`);
    expect(policy(MAX_ENTRY_BYTES).length).toBe(MAX_ENTRY_BYTES);
    expect((await readBundle(await file({ 'apiproxy/orders.xml': PROXY, 'apiproxy/policies/big.xml': policy(MAX_ENTRY_BYTES) }))).files.get('policies/big.xml')?.length).toBe(MAX_ENTRY_BYTES);
    expect(await refusal(await file({ 'apiproxy/orders.xml': PROXY, 'apiproxy/policies/big.xml': policy(MAX_ENTRY_BYTES + 1) }))).toMatch(
      /refused, entry "apiproxy\/policies\/big\.xml" inflates to 4194305 bytes \(at most 4194304\)/,
    );
  });

  it('refuses an entry that declares more than 4 MiB, whatever it holds (never inflated)', async () => {
    const zip = declaring(zipOf({ 'apiproxy/orders.xml': PROXY, 'apiproxy/policies/SA.xml': POLICY }), 'apiproxy/policies/SA.xml', 2 ** 32 - 2);
    expect(await refusal(await file(zip))).toMatch(/entry "apiproxy\/policies\/SA\.xml" inflates to 4294967294 bytes/);
  });

  it('refuses entries that declare more than 64 MiB together, each within its own bound', async () => {
    let zip = zipOf(Object.fromEntries([['apiproxy/orders.xml', PROXY], ...Array.from({ length: 16 }, (_, i) => [`apiproxy/policies/p${i}.xml`, POLICY])]));
    for (let i = 0; i < 16; i++) zip = declaring(zip, `apiproxy/policies/p${i}.xml`, MAX_ENTRY_BYTES);
    expect(await refusal(await file(zip))).toMatch(/refused, inflates to more than 67108864 bytes/);
  });

  it('refuses a stored entry that holds more than 4 MiB while declaring less: the inflated size is the fact', async () => {
    const big = Buffer.from(`<x>${'a'.repeat(MAX_ENTRY_BYTES)}</x>`);
    const zip = declaring(zipOf({ 'apiproxy/orders.xml': PROXY, 'apiproxy/policies/big.xml': [big, { level: 0 }] }), 'apiproxy/policies/big.xml', 100);
    expect(await refusal(await file(zip))).toMatch(/refused, entry "apiproxy\/policies\/big\.xml" inflates past 4194304 bytes/);
  });

  it('never inflates a deflated entry past what it declared (memory is bounded by the declared sizes)', async () => {
    const big = Buffer.from(`<x>${'a'.repeat(MAX_ENTRY_BYTES)}</x>`);
    const zip = declaring(zipOf({ 'apiproxy/orders.xml': PROXY, 'apiproxy/policies/big.xml': big }), 'apiproxy/policies/big.xml', 1_000);
    const result = await outcome(await file(zip));
    if (typeof result !== 'string') expect(result.files.get('policies/big.xml')?.length ?? 0).toBeLessThanOrEqual(1_000);
  });
});

describe('migration/apigee/bundle: a folder is read as plain files', () => {
  it('does not follow a symbolic link, to a file or to a folder: a link could lead anywhere on the disk', async () => {
    const root = await folder({ 'apiproxy/orders.xml': PROXY, 'apiproxy/policies/SA.xml': POLICY });
    const outside = await folder({ 'secret.xml': '<secret>hunter2</secret>', 'elsewhere/other.xml': '<secret/>' });
    await symlink(join(outside, 'secret.xml'), join(root, 'apiproxy', 'policies', 'linked.xml'));
    await symlink(join(outside, 'elsewhere'), join(root, 'apiproxy', 'targets'));
    const bundle = await readBundle(root);
    expect([...bundle.files.keys()].sort()).toEqual(['orders.xml', 'policies/SA.xml']);
  });

  it('reads a file of 4 MiB, and refuses one of a byte more', async () => {
    const root = await folder({ 'apiproxy/orders.xml': PROXY, 'apiproxy/policies/big.xml': '' });
    const big = join(root, 'apiproxy', 'policies', 'big.xml');
    await truncate(big, MAX_ENTRY_BYTES);
    expect((await readBundle(root)).files.get('policies/big.xml')?.length).toBe(MAX_ENTRY_BYTES);
    await truncate(big, MAX_ENTRY_BYTES + 1);
    expect(await refusal(root)).toMatch(/big\.xml: larger than a bundle's files can be \(4194304 bytes each, 67108864 in all\)/);
  });

  it('refuses files of more than 64 MiB together, each within its own bound', async () => {
    const files = Object.fromEntries([['apiproxy/orders.xml', PROXY], ...Array.from({ length: 16 }, (_, i) => [`apiproxy/policies/p${i}.xml`, ''])]);
    const root = await folder(files);
    for (let i = 0; i < 16; i++) await truncate(join(root, 'apiproxy', 'policies', `p${i}.xml`), MAX_ENTRY_BYTES);
    expect(await refusal(root)).toMatch(/larger than a bundle's files can be/);
  });
});
