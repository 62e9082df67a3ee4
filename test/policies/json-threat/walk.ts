import type { JsonLimits, JsonMeasurements } from '../../../src/policies/json-threat/limits.js';

export type StructureMeasurements = Omit<JsonMeasurements, 'bytes'>;

/**
 * The scanner's measures computed the slow, obvious way: by walking what
 * JSON.parse produced. Iterative, so deep values cannot overflow the stack.
 */
export function measureParsed(value: unknown): StructureMeasurements {
  const found: StructureMeasurements = { depth: 0, objectEntries: 0, arrayElements: 0, nameLength: 0, stringLength: 0 };
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value: item, depth } = next;
    if (typeof item === 'string') {
      found.stringLength = Math.max(found.stringLength, item.length);
    } else if (Array.isArray(item)) {
      found.depth = Math.max(found.depth, depth + 1);
      found.arrayElements = Math.max(found.arrayElements, item.length);
      for (const element of item as unknown[]) pending.push({ value: element, depth: depth + 1 });
    } else if (item !== null && typeof item === 'object') {
      found.depth = Math.max(found.depth, depth + 1);
      const entries = Object.entries(item);
      found.objectEntries = Math.max(found.objectEntries, entries.length);
      for (const [name, element] of entries) {
        found.nameLength = Math.max(found.nameLength, name.length);
        pending.push({ value: element, depth: depth + 1 });
      }
    }
  }
  return found;
}

/** Whether limits refuse a text with these measurements: any one of them past its limit. */
export function exceedsAny(measured: JsonMeasurements, limits: JsonLimits): boolean {
  return (
    measured.depth > limits.maxDepth ||
    measured.objectEntries > limits.maxObjectEntries ||
    measured.arrayElements > limits.maxArrayElements ||
    measured.nameLength > limits.maxNameLength ||
    measured.stringLength > limits.maxStringLength ||
    measured.bytes > limits.maxBodySize
  );
}
