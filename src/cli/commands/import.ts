import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CommandLineError } from '../command-errors.js';
import { EXIT, type CommandIo } from '../io.js';

export const IMPORT_USAGE = `usage: token-gateway import apigee <bundle folder or .zip>... --out DIR [--force]

  Reads Apigee API proxy bundles (and the shared flow bundles they call, given
  in the same command), writes one policy file per bundle into DIR, prints the
  gateway.yaml keys (routes, endpoint chains, token lifetimes) on standard
  output and the report on standard error.

  --out DIR   the policies folder to write into (created if missing)
  --force     replace files of the same names in DIR (otherwise nothing is written)

  exit 0: complete; 1: something was not translated (what was is written), or a
  bundle or DIR could not be read or written; 2: the command line is wrong.
`;

/**
 * `import apigee`. The importer (and its XML and zip libraries) is loaded
 * only here, so that serving requests never loads them.
 */
export async function importCommand(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options: { out: { type: 'string' }, force: { type: 'boolean', default: false } }, allowPositionals: true, strict: true });
  const [source, ...bundles] = positionals;
  if (source !== 'apigee') throw new CommandLineError(source === undefined ? 'name what to import from: apigee' : `cannot import from "${source}"; only apigee is known`);
  if (bundles.length === 0) throw new CommandLineError('name at least one bundle folder or .zip');
  if (!values.out) throw new CommandLineError('--out DIR is required: the policies folder to write into');
  const out = values.out;

  const { importApigee, renderAttachments } = await import('../../migration/apigee/import-bundles.js');
  const { BundleError } = await import('../../migration/apigee/bundle.js');
  let result;
  try {
    result = await importApigee(bundles);
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    io.stderr.write(`token-gateway import: ${error.message}\n`);
    return EXIT.invalid;
  }
  const targets = [...result.files.keys()].map((name) => join(out, name));
  if (!values.force) {
    const existing = (await Promise.all(targets.map(async (file) => ((await exists(file)) ? file : undefined)))).filter((file) => file !== undefined);
    if (existing.length > 0) {
      io.stderr.write(`token-gateway import: ${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}; nothing was written (--force replaces them)\n`);
      return EXIT.invalid;
    }
  }
  try {
    await mkdir(out, { recursive: true });
    for (const [name, text] of result.files) await writeFile(join(out, name), text);
  } catch (error) {
    io.stderr.write(`token-gateway import: cannot write into ${out} (${(error as NodeJS.ErrnoException).code ?? String(error)})\n`);
    return EXIT.invalid;
  }
  io.stdout.write(renderAttachments(result.attachments, out));
  io.stderr.write(`wrote ${targets.length === 0 ? 'no policy file' : targets.join(', ')}\n${result.report.render()}`);
  return result.report.complete ? EXIT.ok : EXIT.invalid;
}

const exists = (file: string): Promise<boolean> => access(file).then(() => true, () => false);
