import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The picture of docs/architecture.md, held against the imports: every room
 * of src/ sits on one layer, and a module imports only its own room or rooms
 * of lower layers (type-only imports included: they are dependencies too).
 * No import cycle between modules either. A new room must be placed here,
 * and in docs/architecture.md, before it can be imported.
 */
export const LAYERS: ReadonlyArray<readonly string[]> = [
  ['bounded-memo', 'clock', 'errors', 'log', 'maybe-promise', 'net'],
  ['config'],
  ['http', 'listeners', 'store'],
  ['keys', 'accounts'],
  ['tokens', 'telemetry', 'policies'],
  ['context', 'migration'],
  ['oauth', 'proxy'],
  ['pipeline'],
  ['admin'],
  ['lifecycle', 'cluster'],
  ['cli', 'index'],
  ['demo', 'deploy', 'docs'],
];

const SRC = resolve('src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const roomOf = (file: string): string => {
  const parts = relative(SRC, file).split('/');
  return parts.length === 1 ? (parts[0] as string).replace(/\.ts$/, '') : (parts[0] as string);
};

/** Every relative import of a module, as the absolute path of the .ts file it names. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => resolve(dirname(file), match[1] as string).replace(/\.js$/, '.ts'));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const layerOf = new Map(LAYERS.flatMap((rooms, layer) => rooms.map((room) => [room, layer] as const)));

describe('the architecture (docs/architecture.md)', () => {
  it('places every room of src/ on a layer', () => {
    const unplaced = [...new Set(files.map(roomOf))].filter((room) => !layerOf.has(room));
    expect(unplaced, 'rooms missing from LAYERS and docs/architecture.md').toEqual([]);
  });

  it('has every import point to its own room or a lower layer', () => {
    const upward: string[] = [];
    for (const [file, imports] of graph) {
      const from = roomOf(file);
      for (const target of imports) {
        const to = roomOf(target);
        if (to === from) continue;
        if ((layerOf.get(to) ?? Infinity) >= (layerOf.get(from) ?? -1)) upward.push(`${relative(SRC, file)} -> ${relative(SRC, target)} (${from} may not import ${to})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("takes zod from config/zod.ts only, so that every schema speaks the operator's messages", () => {
    const bare = files.filter((file) => !file.endsWith(join('config', 'zod.ts')) && /from\s+['"]zod(\/[^'"]*)?['"]/.test(readFileSync(file, 'utf8')));
    expect(bare.map((file) => relative(SRC, file))).toEqual([]);
  });

  it('has no import cycle between modules', () => {
    expect(cyclesOf(graph).map((cycle) => cycle.map((file) => relative(SRC, file)).join(' -> '))).toEqual([]);
  });
});

/** Tarjan's strongly connected components of more than one module (or a module importing itself). */
function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of edges.get(node) ?? []) {
      if (!edges.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (edges.get(node) ?? []).includes(node)) cycles.push(component);
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}
