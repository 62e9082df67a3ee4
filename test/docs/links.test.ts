import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function markdownUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(ROOT, path)).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const PAGES = ['README.md', 'packages/client/README.md', ...markdownUnder('docs')];

/** The text outside fenced code blocks and code spans: what GitHub renders as links and headings. */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/(`+)[\s\S]*?\1/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = (heading ?? '').trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function linksOf(page: string): string[] {
  const text = prose(readFileSync(join(ROOT, page), 'utf8'));
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target ?? '').filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));
}

/** The repository path a relative link of `page` points to, and its fragment. */
function resolve(page: string, target: string): { path: string; fragment: string | undefined } {
  const [file = '', fragment] = target.split('#');
  return { path: file === '' ? page : normalize(relative(ROOT, join(ROOT, dirname(page), decodeURI(file)))), fragment };
}

describe('links in README.md and docs/', () => {
  it.each(PAGES)('every relative link of %s reaches a file, and a heading when it names one', (page) => {
    const broken = linksOf(page).flatMap((target) => {
      const { path, fragment } = resolve(page, target);
      if (!existsSync(join(ROOT, path))) return [`${target}: no file ${path}`];
      if (fragment === undefined) return [];
      if (!path.endsWith('.md')) return [`${target}: a fragment on a file that is not Markdown`];
      return anchorsOf(readFileSync(join(ROOT, path), 'utf8')).has(fragment) ? [] : [`${target}: ${path} has no heading #${fragment}`];
    });
    expect(broken).toEqual([]);
  });

  it('lists every page of docs/ in the README map', () => {
    const linked = new Set(linksOf('README.md').map((target) => resolve('README.md', target).path));
    expect(markdownUnder('docs').filter((page) => !linked.has(page))).toEqual([]);
  });
});
