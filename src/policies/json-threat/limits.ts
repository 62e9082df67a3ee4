/** The limits a scan enforces; `Infinity` switches one off. */
export interface JsonLimits {
  readonly maxDepth: number;
  readonly maxObjectEntries: number;
  readonly maxArrayElements: number;
  /** UTF-16 code units, as `.length` of the parsed name. */
  readonly maxNameLength: number;
  /** UTF-16 code units, as `.length` of the parsed string. */
  readonly maxStringLength: number;
  readonly maxBodySize: number;
}

/** The largest of each measure seen so far: what a walk of JSON.parse's result would find. */
export interface JsonMeasurements {
  depth: number;
  objectEntries: number;
  arrayElements: number;
  nameLength: number;
  stringLength: number;
  bytes: number;
}

export const UNLIMITED: JsonLimits = Object.freeze({
  maxDepth: Infinity,
  maxObjectEntries: Infinity,
  maxArrayElements: Infinity,
  maxNameLength: Infinity,
  maxStringLength: Infinity,
  maxBodySize: Infinity,
});
