/**
 * A minimal fetch-based client for talking to an emulator in tests (no retries, no rate limiting:
 * it shows exactly what the server answers). Not the product's gpucloud client.
 */

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON when the body is JSON, else undefined. */
  json: unknown;
}

export interface EmulatorTestClient {
  /** Gets (and caches) an access token with the client credentials. */
  token(): Promise<string>;
  /** Authenticated request; `body` objects are sent as JSON. Pass `auth: false` to omit the bearer token. */
  call(method: string, path: string, body?: unknown, opts?: { auth?: boolean; headers?: Record<string, string> }): Promise<RawResponse>;
}

export function emulatorClient(emu: { url: string; clientId: string; clientSecret: string }): EmulatorTestClient {
  let cached: string | undefined;
  const raw = async (method: string, path: string, body: unknown, headers: Record<string, string>): Promise<RawResponse> => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await fetch(emu.url + path, init);
    const text = await res.text();
    let json: unknown;
    if ((res.headers.get('content-type') ?? '').includes('application/json') && text) json = JSON.parse(text);
    return { status: res.status, headers: res.headers, text, json };
  };
  const client: EmulatorTestClient = {
    async token() {
      if (cached) return cached;
      const r = await raw('POST', '/v1/oauth2/token', { grant_type: 'client_credentials', client_id: emu.clientId, client_secret: emu.clientSecret }, {});
      if (r.status !== 200) throw new Error(`token request failed: ${r.status} ${r.text}`);
      cached = (r.json as { access_token: string }).access_token;
      return cached;
    },
    async call(method, path, body, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.auth !== false) headers.authorization = `Bearer ${await client.token()}`;
      return raw(method, path, body, headers);
    },
  };
  return client;
}
