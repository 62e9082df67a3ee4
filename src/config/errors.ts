/** One problem in one file, located well enough for an operator to fix it without guessing. */
export interface ConfigIssue {
  file: string;
  /** 1-based line, when the key exists in the file. */
  line?: number;
  /** Dotted path to the key, e.g. `routes[0].upstream`; empty for the whole file. */
  key: string;
  message: string;
}

export function formatIssue(issue: ConfigIssue): string {
  const where = issue.line === undefined ? issue.file : `${issue.file}:${issue.line}`;
  return issue.key ? `${where}: ${issue.key}: ${issue.message}` : `${where}: ${issue.message}`;
}

export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(`invalid configuration:\n${issues.map((issue) => `  ${formatIssue(issue)}`).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

export const keyPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text ? `${text}.${String(segment)}` : String(segment)),
    '',
  );

/**
 * Something outside the config files that stops start-up: a missing secret,
 * an unreadable key file. The message says what to do and never holds a secret.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}
