import type { PatternSet } from './pattern-set.js';
import type { Segment, Selector } from './selectors.js';

/** Which pattern matched, and where; never the matched text, which may be a secret. */
export interface Finding {
  readonly pattern: string;
  readonly where: string;
}

/**
 * A value of the parsed body (a container, or a selected string) with the way
 * back to the root. Paths are rendered only when something matches: building
 * them on the way down would cost the square of the depth of a nested body.
 */
interface Node {
  readonly value: unknown;
  readonly parent: Node | undefined;
  readonly step: string | number | undefined;
}

/** The log detail of a refusal: `pattern sql-injection matched query parameter q`. */
export const describeFinding = ({ pattern, where }: Finding): string => `pattern ${pattern} matched ${where}`;

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a policy tests in a JSON body: the selected nodes, each as its keys and strings or as one text. */
export interface BodyScan {
  readonly selectors: readonly Selector[];
  /** `apply_to.json_text`: a selected node is tested as its value (a string) or its compact JSON text. */
  readonly asText: boolean;
}

/**
 * Tests every string value and every object key under each selected node,
 * or (`asText`) each selected node as one text. `$` selects the whole body,
 * which is what `json_body: all` compiles to.
 */
export function scanJson(root: unknown, { selectors, asText }: BodyScan, patterns: PatternSet): Finding | undefined {
  const top: Node = { value: root, parent: undefined, step: undefined };
  for (const selector of selectors) {
    for (const node of select(top, selector.segments)) {
      const finding = asText ? scanText(node, patterns) : scanTree(node, patterns);
      if (finding) return finding;
    }
  }
  return undefined;
}

/** A selected node as Apigee's JSONPayload tests it: a string as its value, anything else as its JSON text. */
function scanText(node: Node, patterns: PatternSet): Finding | undefined {
  let text: string;
  try {
    text = typeof node.value === 'string' ? node.value : JSON.stringify(node.value);
  } catch {
    // JSON.stringify recurses: a body nested past the stack cannot be written out, so it cannot pass untested.
    return { pattern: '(none)', where: `body ${renderPath(node, undefined)}, nested too deep to be tested as text` };
  }
  const pattern = patterns.firstMatch(text);
  return pattern ? { pattern, where: `body ${renderPath(node, undefined)}` } : undefined;
}

function select(top: Node, segments: readonly Segment[]): Node[] {
  let nodes = [top];
  for (const segment of segments) {
    const next: Node[] = [];
    for (const node of nodes) addChildren(node, segment, next);
    nodes = next;
  }
  return nodes;
}

function addChildren(node: Node, segment: Segment, into: Node[]): void {
  const { value } = node;
  if (Array.isArray(value)) {
    if (segment.kind === 'any') value.forEach((item: unknown, index) => into.push({ value: item, parent: node, step: index }));
    else if (segment.kind === 'index' && segment.index < value.length) {
      into.push({ value: value[segment.index], parent: node, step: segment.index });
    }
  } else if (isObject(value)) {
    if (segment.kind === 'any') for (const [key, item] of Object.entries(value)) into.push({ value: item, parent: node, step: key });
    else if (segment.kind === 'key' && Object.hasOwn(value, segment.key)) {
      into.push({ value: value[segment.key], parent: node, step: segment.key });
    }
  }
}

/** Depth first with an explicit stack: a body nested 100,000 deep must not overflow the call stack. */
function scanTree(start: Node, patterns: PatternSet): Finding | undefined {
  if (typeof start.value === 'string') return matchValue(start.value, start, undefined, patterns);
  const pending: Node[] = [start];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const containers: Node[] = [];
    const finding = scanContainer(node, patterns, containers);
    if (finding) return finding;
    // Reversed so that nested containers are visited in document order.
    for (let index = containers.length - 1; index >= 0; index--) pending.push(containers[index] as Node);
  }
  return undefined;
}

/** Tests the keys and string values held directly by `node`; collects the containers it holds. */
function scanContainer(node: Node, patterns: PatternSet, containers: Node[]): Finding | undefined {
  const { value } = node;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const finding = scanEntry(node, index, value[index], patterns, containers);
      if (finding) return finding;
    }
  } else if (isObject(value)) {
    for (const key of Object.keys(value)) {
      const pattern = patterns.firstMatch(key);
      // The key itself matched: name the object that holds it, not the key.
      if (pattern) return { pattern, where: `a key in body ${renderPath(node, undefined)}` };
      const finding = scanEntry(node, key, value[key], patterns, containers);
      if (finding) return finding;
    }
  }
  return undefined;
}

function scanEntry(parent: Node, step: string | number, value: unknown, patterns: PatternSet, containers: Node[]): Finding | undefined {
  if (typeof value === 'string') return matchValue(value, parent, step, patterns);
  if (typeof value === 'object' && value !== null) containers.push({ value, parent, step });
  return undefined;
}

function matchValue(text: string, parent: Node, step: string | number | undefined, patterns: PatternSet): Finding | undefined {
  const pattern = patterns.firstMatch(text);
  return pattern ? { pattern, where: `body ${renderPath(parent, step)}` } : undefined;
}

const MAX_PATH = 120;
const PLAIN_KEY = /^[A-Za-z_$][\w$-]{0,39}$/;

/** `$.directors[2].name`, cut short for logs; long or odd keys are shortened, never dropped. */
function renderPath(node: Node, last: string | number | undefined): string {
  const steps: Array<string | number> = last === undefined ? [] : [last];
  for (let at: Node | undefined = node; at?.step !== undefined; at = at.parent) steps.push(at.step);
  let path = '$';
  for (let index = steps.length - 1; index >= 0 && path.length <= MAX_PATH; index--) path += renderStep(steps[index] ?? '');
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH)}…` : path;
}

function renderStep(step: string | number): string {
  if (typeof step === 'number') return `[${step}]`;
  if (PLAIN_KEY.test(step)) return `.${step}`;
  const shown = step.length > 40 ? `${step.slice(0, 40)}…` : step;
  return `['${shown.replace(/[\\']/g, '\\$&')}']`;
}
