/** Form-encoded requests, as standard OAuth 2.0 client libraries send them (RFC 6749 appendix B). */

export const FORM_TYPE = 'application/x-www-form-urlencoded';

export type FormFields = Record<string, string | readonly string[] | undefined>;

/** `a=1&b=2`, a list repeating its name, undefined leaving the name out. */
export function formText(fields: FormFields): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    for (const one of typeof value === 'string' ? [value] : value) form.append(name, one);
  }
  return form.toString();
}

/** RFC 6749 2.3.1: both parts form-urlencoded, then base64. */
export const basicAuth = (clientId: string, secret: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

/** POSTs a form (a text is sent as is) to a path of the gateway. */
export function postForm(url: string, path: string, fields: FormFields | string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': FORM_TYPE, ...headers },
    body: typeof fields === 'string' ? fields : formText(fields),
  });
}
