// The TypeScript SDK's OAuth client (@modelcontextprotocol/sdk, installed
// in ../mcpclient) against a ragd in auth.mode oauth: given only its /mcp
// URL it discovers the authorization server, registers, sends the
// person's browser (played here: fetch, following redirects, keeping
// cookies) through the sign-in and the consent page, trades the code,
// reconnects with the token and calls core_retrieve_text. It prints one
// JSON line per request the client or browser made, then the result.
import { Client } from '../mcpclient/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js';
import { StreamableHTTPClientTransport } from '../mcpclient/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js';
import { UnauthorizedError } from '../mcpclient/node_modules/@modelcontextprotocol/sdk/dist/esm/client/auth.js';

const base = process.argv[2];
const redirectUrl = 'http://127.0.0.1:53683/callback';
const print = (o) => process.stdout.write(JSON.stringify(o) + '\n');

async function logged(url, init = {}) {
  const res = await fetch(url, init);
  print({ request: `${init.method || 'GET'} ${new URL(url).pathname}`, status: res.status });
  return res;
}

// The person's browser: cookies kept, redirects followed up to the
// client's redirect URI, Allow pressed on ragd's consent page.
async function browse(authUrl) {
  const cookies = new Map();
  const go = async (url, init = {}) => {
    const headers = { ...(init.headers || {}), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    const res = await logged(url, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [kv] = c.split(';');
      const i = kv.indexOf('=');
      cookies.set(kv.slice(0, i), kv.slice(i + 1));
    }
    return res;
  };
  let url = authUrl.toString();
  let res = await go(url);
  while (res.status === 302) {
    url = new URL(res.headers.get('location'), url).toString();
    res = await go(url);
  }
  const page = await res.text();
  if (!page.includes('<button name="decision" value="allow">')) throw new Error(`no consent page: ${res.status} ${page}`);
  const form = new URLSearchParams({ decision: 'allow' });
  for (const m of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) form.set(m[1], m[2]);
  res = await go(`${base}/oauth/consent`, { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base } });
  const back = new URL(res.headers.get('location'));
  if (!back.toString().startsWith(redirectUrl)) throw new Error(`consent sent the browser to ${back}`);
  if (back.searchParams.get('iss') !== base) throw new Error(`iss ${back.searchParams.get('iss')}, want ${base}`);
  return back.searchParams.get('code');
}

let info, tokens, verifier, code;
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return { client_name: 'TypeScript SDK test agent', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none' };
  },
  clientInformation: () => info,
  saveClientInformation: (i) => { info = i; },
  tokens: () => tokens,
  saveTokens: (t) => { tokens = t; },
  redirectToAuthorization: async (u) => { code = await browse(u); },
  saveCodeVerifier: (v) => { verifier = v; },
  codeVerifier: () => verifier,
};

const transport = () => new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider, fetch: logged });
let client = new Client({ name: 'ts-sdk-test-agent', version: '1.0.0' });
const first = transport();
try {
  await client.connect(first);
  throw new Error('connected without signing in');
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
}
await first.finishAuth(code);
client = new Client({ name: 'ts-sdk-test-agent', version: '1.0.0' });
await client.connect(transport());
const res = await client.callTool({ name: 'core_retrieve_text', arguments: { query: 'harbour lighthouse lamp controller', kb_name: 'docs', top_k: 10 } });
print({ result: res.structuredContent, isError: !!res.isError, scope: tokens && tokens.scope });
await client.close();
