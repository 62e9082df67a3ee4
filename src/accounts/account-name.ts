/**
 * What the account commands accept as a username, client_id or status: 1 to
 * 128 characters, none of them whitespace or invisible (control, format,
 * unassigned). A name typed with a stray space or pasted with a zero-width
 * character would be listed but never match what a client sends; 128 keeps
 * log lines readable. Hand-edited files are held only to the schema.
 */
const ACCOUNT_NAME = /^[^\s\p{C}]{1,128}$/u;

/** Why `name` would not survive as an account name, or undefined when it is fine. */
export function accountNameProblem(name: string): string | undefined {
  if (name === '') return 'is empty';
  if ([...name].length > 128) return 'is longer than 128 characters';
  if (!ACCOUNT_NAME.test(name)) return 'contains whitespace or an invisible character';
  return undefined;
}
