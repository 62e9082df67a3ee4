import type { ErrorCase } from './error-responses.js';

/**
 * The errors every path of the token service shares. Policy refusals happen
 * only where an operator attaches a policy of that kind, so each row says
 * where it can be attached.
 */
export function policyCases(options: { apps: boolean }): ErrorCase[] {
  const where = options.apps
    ? 'attached to this path (`policies.defaults`, `policies.endpoints`) or to the app (`apps[].policies`)'
    : 'attached to this path (`policies.defaults`, `policies.endpoints`)';
  return [
    { code: 'REGEX_THREAT', when: `A \`regex-protection\` policy ${where} matched the path, the query, a named header or the JSON body.` },
    { code: 'SPIKE_ARREST', when: `A \`spike-arrest\` policy ${where} refused the request; \`Retry-After\` says when the next window opens.` },
    { code: 'IP_RANGE_FORBIDDEN', when: `An \`ip-range\` policy ${where} refused the client address.` },
    { code: 'TIME_OF_DAY_FORBIDDEN', when: `A \`time-of-day\` policy ${where} is outside its windows.` },
  ];
}

export const methodNotAllowed = (methods: readonly string[]): ErrorCase => ({
  code: 'METHOD_NOT_ALLOWED',
  when: `Any method other than ${methods.join(' or ')}; \`Allow\` lists them.`,
});

/**
 * SPEC 7's internal error row. No request causes it on purpose: it is what
 * any unexpected failure (a defect) becomes, with the stack in the log.
 */
export const INTERNAL_ERROR_CASE: ErrorCase = {
  code: 'INTERNAL_ERROR',
  when: 'An unexpected failure inside the gateway (a defect, logged with its stack); no request causes it on purpose.',
};

/** The body of a path that takes none is read only when a body-inspecting policy is attached. */
export const PUBLIC_PATH_BODY_CASES: ErrorCase[] = [
  { code: 'JSON_THREAT', when: 'A `json-threat` policy attached to this path refused a JSON request body.' },
  {
    code: 'PAYLOAD_TOO_LARGE',
    when: 'A request body larger than `limits.oauth_body_size` (16kb by default), read because a body-inspecting policy (`json-threat`, `regex-protection`) is attached; the connection is closed.',
  },
];
