/** What an admin API call answered. */
export interface AdminAnswer {
  status: number;
  /** Loosely typed on purpose: each test reads the fields of its own operation. */
  body: any;
}

/** One admin API call over real HTTP: a JSON body for POST, the query for GET, the admin token when given. */
export async function adminCall(
  adminUrl: string | undefined,
  method: 'GET' | 'POST',
  path: string,
  input: Record<string, unknown> | string = {},
  token?: string,
): Promise<AdminAnswer> {
  if (!adminUrl) throw new Error('this gateway has no admin listener');
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  let url = `${adminUrl}${path}`;
  let body: string | undefined;
  if (method === 'GET') {
    const query = new URLSearchParams(input as Record<string, string>).toString();
    if (query) url += `?${query}`;
  } else {
    body = typeof input === 'string' ? input : JSON.stringify(input);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(url, { method, headers, body });
  return { status: response.status, body: await response.json() };
}
