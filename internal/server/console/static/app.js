// ragd web console: calls the REST API with fetch as the logged-in browser
// (the session cookie rides along; the page never sees the key). Every
// value from the server is put in the page as text, never as HTML.
'use strict';

const $ = (sel) => document.querySelector(sel);

const state = {
  session: null,       // GET /ui/session's answer
  mode: null,          // the auth mode, from GET /ui/session
  ns: 'default',       // the selected namespace
  docsOffset: 0,
  docsLimit: 10,
  jobsTimer: null,
  jobStatus: new Map(), // job id -> last status seen, to notice completions
  jobLabel: new Map(),  // job id -> file name, for jobs this page started
  jobsPolled: false,
};

// ApiError is a non-2xx answer, with the server's detail as its message.
class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

// el builds an element; attributes starting with "on" are listeners.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) {
    if (c !== undefined && c !== null) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

function detailOf(body) {
  if (!body) return '';
  if (typeof body.detail === 'string') return body.detail;
  if (Array.isArray(body.detail)) {
    return body.detail.map((d) => `${(d.loc || []).join('.')}: ${d.msg}`).join('; ');
  }
  return JSON.stringify(body);
}

// api calls the REST API. A 401 outside the login form means the session
// ended: the login form comes back.
async function api(method, path, body) {
  const opts = { method, credentials: 'same-origin', headers: {} };
  if (body instanceof FormData) {
    opts.body = body;
  } else if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const resp = await fetch(path, opts);
  const text = await resp.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { detail: text }; }
  if (resp.status === 401 && path !== '/ui/login') {
    showLogin('Your session has ended: log in again.');
  }
  if (!resp.ok) throw new ApiError(resp.status, detailOf(data) || `${resp.status} ${resp.statusText}`);
  return data;
}

function toast(msg) {
  const t = $('#toast');
  t.textContent = msg;
  t.hidden = !msg;
  if (msg) setTimeout(() => { if (t.textContent === msg) t.hidden = true; }, 8000);
}

// --------------------------------------------------------------- session

async function boot() {
  wire();
  let resp;
  try {
    resp = await fetch('/ui/session', { credentials: 'same-origin' });
  } catch (e) {
    toast(`ragd does not answer: ${e.message}`);
    return;
  }
  const info = await resp.json().catch(() => ({}));
  state.mode = info.mode;
  if (resp.status === 401 && new URLSearchParams(location.search).has('state')) await ssoFinish();
  else if (resp.status === 401) showLogin('');
  else if (!resp.ok) toast(detailOf(info) || `session check failed (${resp.status})`);
  else startApp(info);
}

function showLogin(msg) {
  stopJobs();
  state.session = null;
  $('#app').hidden = true;
  $('#nav').hidden = true;
  $('#login').hidden = false;
  $('#sso').hidden = state.mode !== 'oauth';
  $('#login-error').textContent = msg || '';
  $('#login-token').focus();
}

// ------------------------------------------------------------ sign-in (SSO)
//
// In auth.mode oauth the console signs in as any client of ragd's
// authorization server does: registered once (RFC 7591) with /ui/ as its
// redirect, it sends the browser to /authorize with PKCE S256 and a
// state, and back at /ui/ checks the state and iss, trades the code for
// a token at /token, opens the console session with it (POST /ui/login),
// and revokes the refresh token it does not need. The verifier lives in
// sessionStorage for the round trip only.

const SSO_PENDING = 'ragd.sso.pending';
const SSO_CLIENT = 'ragd.sso.client';
const SSO_CLIENT_MAX_AGE = 7 * 24 * 3600 * 1000; // re-register after a week

function b64url(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomToken() { return b64url(crypto.getRandomValues(new Uint8Array(32))); }

async function oauthMetadata() {
  const meta = await api('GET', '/.well-known/oauth-authorization-server');
  if (!(meta.code_challenge_methods_supported || []).includes('S256')) throw new Error('the server does not offer PKCE S256');
  return meta;
}

// ssoClient is the console's client id at this server, registered when
// there is none (or it is old: unused registrations expire).
async function ssoClient(meta, redirect) {
  const kept = JSON.parse(localStorage.getItem(SSO_CLIENT) || 'null');
  if (kept && kept.redirect === redirect && Date.now() - kept.at < SSO_CLIENT_MAX_AGE) return kept.id;
  const reg = await api('POST', new URL(meta.registration_endpoint).pathname, {
    client_name: 'ragd console', redirect_uris: [redirect], token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'], response_types: ['code'],
  });
  localStorage.setItem(SSO_CLIENT, JSON.stringify({ id: reg.client_id, redirect, at: Date.now() }));
  return reg.client_id;
}

async function ssoStart() {
  $('#login-error').textContent = '';
  try {
    const meta = await oauthMetadata();
    const redirect = `${location.origin}/ui/`;
    const clientId = await ssoClient(meta, redirect);
    const verifier = randomToken();
    const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
    const st = randomToken();
    sessionStorage.setItem(SSO_PENDING, JSON.stringify({ verifier, state: st, clientId, redirect }));
    const q = new URLSearchParams({
      response_type: 'code', client_id: clientId, redirect_uri: redirect, state: st,
      code_challenge: challenge, code_challenge_method: 'S256', resource: meta.issuer,
    });
    location.assign(`${new URL(meta.authorization_endpoint).pathname}?${q}`);
  } catch (e) {
    $('#login-error').textContent = `sign-in failed: ${e.message}`;
  }
}

// ssoFinish takes the browser's return to /ui/ from the authorization.
async function ssoFinish() {
  const q = new URLSearchParams(location.search);
  const pending = JSON.parse(sessionStorage.getItem(SSO_PENDING) || 'null');
  sessionStorage.removeItem(SSO_PENDING);
  history.replaceState(null, '', location.pathname); // the code leaves the address bar
  try {
    if (!pending || q.get('state') !== pending.state) throw new Error('this sign-in was not started here; start again');
    const meta = await oauthMetadata();
    if (q.get('iss') !== meta.issuer) throw new Error('the answer came from another issuer');
    if (q.get('error')) throw new Error(q.get('error_description') || q.get('error'));
    const form = new URLSearchParams({
      grant_type: 'authorization_code', code: q.get('code') || '', redirect_uri: pending.redirect,
      client_id: pending.clientId, code_verifier: pending.verifier, resource: meta.issuer,
    });
    const resp = await fetch(new URL(meta.token_endpoint).pathname, { method: 'POST', credentials: 'same-origin', body: form });
    const tok = await resp.json().catch(() => ({}));
    if (!resp.ok || !tok.access_token) throw new Error(tok.error_description || tok.error || `token endpoint answered ${resp.status}`);
    const info = await api('POST', '/ui/login', { token: tok.access_token });
    if (tok.refresh_token && meta.revocation_endpoint) {
      fetch(new URL(meta.revocation_endpoint).pathname, {
        method: 'POST', credentials: 'same-origin', body: new URLSearchParams({ token: tok.refresh_token, client_id: pending.clientId }),
      }).catch(() => {});
    }
    startApp(info);
  } catch (e) {
    showLogin(`sign-in refused: ${e.message}`);
  }
}

async function login(ev) {
  ev.preventDefault();
  const token = $('#login-token').value.trim();
  $('#login-error').textContent = '';
  try {
    const info = await api('POST', '/ui/login', { token });
    $('#login-token').value = '';
    startApp(info);
  } catch (e) {
    $('#login-error').textContent = e.message;
    // A refused key is not left in the field for the next try.
    $('#login-token').value = '';
    $('#login-token').focus();
  }
}

async function logout() {
  try { await api('POST', '/ui/logout'); } catch (e) { toast(e.message); }
  showLogin('Logged out.');
}

async function startApp(info) {
  state.session = info;
  const limited = info.namespaces && info.namespaces.length > 0;
  if (limited && !info.namespaces.includes(state.ns)) state.ns = info.namespaces[0];
  $('#login').hidden = true;
  $('#app').hidden = false;
  $('#nav').hidden = false;
  const authOn = info.mode !== 'disabled';
  $('#whoami').textContent = authOn ? `${info.principal}${limited ? ` (${info.namespaces.join(', ')})` : ''}` : 'auth disabled';
  $('#logout').hidden = !authOn;
  $('#monitoring-link').hidden = !info.operator;
  // One read of the counts serves the choice and the list.
  const stats = await namespaceStats().catch(() => null);
  selectNamespace(openingNamespace(state.ns, info.namespaces, stats || {}), stats);
  refreshSources();
  startJobs();
}

// openingNamespace is the namespace the console opens on: ns when it holds
// documents, else the one of those the key may use that holds the most
// (ties by name), else ns. A new user who indexed into "books" sees books,
// not an empty default.
function openingNamespace(ns, allowed, stats) {
  const docs = (n) => (stats[n] && stats[n].documents) || 0;
  if (docs(ns) > 0) return ns;
  const usable = (n) => !allowed || allowed.length === 0 || allowed.includes(n);
  const full = Object.keys(stats).filter((n) => docs(n) > 0 && usable(n));
  full.sort((a, b) => docs(b) - docs(a) || a.localeCompare(b));
  return full[0] || ns;
}

// ------------------------------------------------------------ namespaces

// selectNamespace shows ns; stats, when given, are counts just read.
function selectNamespace(ns, stats) {
  state.ns = ns;
  state.docsOffset = 0;
  for (const id of ['#upload-ns', '#docs-ns']) $(id).textContent = ns;
  $('#ask-ns').textContent = `in ${ns}`;
  refreshNamespaces(stats);
  refreshDocuments();
}

// namespaceStats reads each namespace's document and chunk counts.
async function namespaceStats() {
  return (await api('GET', '/tools/rag_stats')).statistics.namespaces || {};
}

// refreshNamespaces lists the namespaces with their counts: stats, or
// read now.
async function refreshNamespaces(stats) {
  if (!stats) {
    try {
      stats = await namespaceStats();
    } catch (e) {
      if (e.status !== 401) toast(`namespaces: ${e.message}`);
      return;
    }
  }
  const allowed = state.session && state.session.namespaces;
  const names = new Set(Object.keys(stats));
  for (const n of allowed || []) names.add(n);
  names.add(state.ns);
  const list = $('#namespaces');
  list.replaceChildren(...[...names].sort().map((n) => {
    const c = stats[n] || { documents: 0, chunks: 0 };
    return el('li', { class: n === state.ns ? 'selected' : '', 'data-ns': n, onclick: () => selectNamespace(n) },
      el('span', { class: 'name' }, n),
      el('span', { class: 'counts' }, `${plural(c.documents, 'document')} · ${plural(c.chunks, 'chunk')}`));
  }));
}

// named is s when it says something ("." is the title and path of text
// without headings), else null.
function named(s) { return s && /[\p{L}\p{N}]/u.test(s) ? s : null; }

// bidiControls are the characters that reorder how text displays
// (Unicode Bidi_Control): in "invoice\u202Efdp.exe" they would show
// "invoiceexe.pdf".
const bidiControls = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

// shown is a name (a source, a file, a title) as the console shows it: a
// bidirectional control appears as ⟨U+202E⟩ instead of disguising it. The
// server refuses them in uploaded names and titles and strips them from
// titles it reads, but a file on disk may be named with one.
function shown(name) {
  return String(name).replace(bidiControls, (c) => `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

function plural(n, word) { return `${n} ${word}${n === 1 ? '' : 's'}`; }

function useNamespace(ev) {
  ev.preventDefault();
  const n = $('#ns-input').value.trim();
  if (!n) return;
  const allowed = state.session.namespaces || [];
  if (allowed.length > 0 && !allowed.includes(n)) {
    toast(`This key may use only: ${allowed.join(', ')}`);
    return;
  }
  $('#ns-input').value = '';
  selectNamespace(n);
}

// ---------------------------------------------------------------- upload

async function upload(files) {
  if (!files || files.length === 0) return;
  const form = new FormData();
  // kb_name first: a forbidden namespace is refused before the files are read.
  form.append('kb_name', state.ns);
  for (const f of files) form.append('file', f, f.name);
  const status = $('#upload-status');
  status.textContent = `Uploading ${files.length} file(s) into ${state.ns}…`;
  try {
    const resp = await api('POST', '/documents', form);
    const queued = resp.jobs.filter((j) => j.job_id);
    for (const j of queued) state.jobLabel.set(j.job_id, j.filename);
    const dups = resp.jobs.filter((j) => j.dedup_hit).map((j) => j.filename);
    status.textContent = `Queued ${plural(queued.length, 'job')}` + (dups.length ? `; already indexed: ${dups.join(', ')}` : '');
    refreshJobs();
  } catch (e) {
    status.textContent = `Upload refused: ${e.message}`;
  }
}

function wireDropzone() {
  const zone = $('#dropzone');
  zone.addEventListener('dragover', (ev) => { ev.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (ev) => {
    ev.preventDefault();
    zone.classList.remove('over');
    upload(ev.dataTransfer.files);
  });
  $('#file-input').addEventListener('change', (ev) => {
    upload(ev.target.files);
    ev.target.value = '';
  });
}

// ------------------------------------------------------------- documents

async function refreshDocuments() {
  const q = new URLSearchParams({ kb_name: state.ns, limit: state.docsLimit, offset: state.docsOffset });
  let page;
  try {
    page = await api('GET', `/documents?${q}`);
  } catch (e) {
    if (e.status !== 401) toast(`documents: ${e.message}`);
    return;
  }
  const rows = page.documents.map((d) => el('tr', { 'data-doc': d.document_id },
    el('td', {}, el('div', {}, shown(named(d.title) || d.source.split('/').pop())), el('div', { class: 'src' }, shown(d.source))),
    el('td', { class: 'num' }, d.chunks),
    el('td', {}, new Date(d.updated_at).toLocaleString()),
    el('td', {}, el('button', { class: 'danger', type: 'button', onclick: (ev) => deleteDocument(ev.target, d) }, 'Delete'))));
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: 4, class: 'muted' }, 'No documents yet: drop a file above.')));
  $('#documents').replaceChildren(...rows);
  $('#docs-page').textContent = page.total === 0 ? '' :
    `${state.docsOffset + 1}–${state.docsOffset + page.count} of ${page.total}`;
  $('#docs-prev').disabled = state.docsOffset === 0;
  $('#docs-next').disabled = page.next_offset === undefined || page.next_offset === null;
  $('#docs-next').dataset.next = page.next_offset ?? '';
}

// deleteDocument asks for a second click instead of a modal confirm().
async function deleteDocument(button, doc) {
  if (!button.classList.contains('armed')) {
    button.classList.add('armed');
    button.textContent = 'Confirm delete';
    setTimeout(() => { button.classList.remove('armed'); button.textContent = 'Delete'; }, 4000);
    return;
  }
  button.disabled = true;
  try {
    await api('DELETE', `/documents/${encodeURIComponent(doc.document_id)}?kb_name=${encodeURIComponent(state.ns)}`);
    toast('');
  } catch (e) {
    toast(`delete: ${e.message}`);
  }
  refreshDocuments();
  refreshNamespaces();
}

function pageDocuments(next) {
  state.docsOffset = next ? Number($('#docs-next').dataset.next) : Math.max(0, state.docsOffset - state.docsLimit);
  refreshDocuments();
}

// ------------------------------------------------------------------ jobs

function startJobs() {
  stopJobs();
  refreshJobs();
  state.jobsTimer = setInterval(refreshJobs, 1000);
}

function stopJobs() {
  if (state.jobsTimer) clearInterval(state.jobsTimer);
  state.jobsTimer = null;
}

async function refreshJobs() {
  if (document.hidden) return; // no polling from a background tab
  let list;
  try {
    list = await api('GET', '/jobs?limit=15');
  } catch (e) {
    if (e.status !== 401) toast(`jobs: ${e.message}`);
    return;
  }
  let finished = false;
  let moved = false;
  for (const j of list.jobs) {
    const before = state.jobStatus.get(j.job_id);
    if (before && before !== j.status) moved = true;
    // A job first seen completed finished since the last poll too, unless
    // this is the first poll.
    if (j.status === 'completed' && before !== 'completed' && (before || state.jobsPolled)) finished = true;
    state.jobStatus.set(j.job_id, j.status);
  }
  state.jobsPolled = true;
  $('#jobs').replaceChildren(...(list.jobs.length ? list.jobs.map(jobItem) : [el('li', { class: 'muted' }, 'No jobs.')]));
  if (finished) {
    refreshNamespaces();
    refreshDocuments();
  }
  if (moved || finished) refreshSources();
}

function jobLabel(j) {
  const r = j.result || {};
  return shown(state.jobLabel.get(j.job_id) || (r.source ? r.source.split('/').pop() : null) ||
    r.directory_path || `${j.type} ${j.job_id.slice(0, 8)}`);
}

// progressBar sets its width through the CSSOM: the console's CSP allows
// no inline style attributes.
function progressBar(status, pct) {
  const fill = el('div', { class: 'fill' });
  fill.style.width = `${pct}%`;
  return el('div', { class: `bar ${status}` }, fill);
}

function jobItem(j) {
  const p = j.progress || {};
  const done = j.status === 'completed';
  const pct = done ? 100 : (p.total > 0 ? Math.round((100 * p.done) / p.total) : 0);
  const counts = p.total > 0 ? `${p.done}/${p.total} ${p.unit}` : (p.unit || '');
  const terminal = ['completed', 'failed', 'cancelled'].includes(j.status);
  return el('li', { 'data-job-id': j.job_id, 'data-status': j.status },
    el('div', { class: 'row' },
      el('span', { class: 'label' }, jobLabel(j)),
      el('span', { class: `badge ${j.status}` }, j.status)),
    progressBar(j.status, pct),
    el('div', { class: 'row' },
      el('span', { class: 'sub' }, [j.kb_name, counts, j.error].filter(Boolean).join(' · ')),
      terminal ? null : el('button', { class: 'danger', type: 'button', onclick: () => cancelJob(j.job_id) }, 'Cancel')));
}

async function cancelJob(id) {
  try {
    await api('POST', `/jobs/${encodeURIComponent(id)}/cancel`);
  } catch (e) {
    toast(`cancel: ${e.message}`);
  }
  refreshJobs();
}

// ------------------------------------------------------------- sources

// refreshSources lists the sources the principal sees (GET /sources),
// each with its state and a "Sync now" button; a sync's job shows in the
// jobs list with its progress, as uploads do.
async function refreshSources() {
  let list;
  try {
    list = await api('GET', '/sources');
  } catch (e) {
    if (e.status !== 401) $('#sources').replaceChildren(el('tr', {}, el('td', { colspan: 6, class: 'muted' }, `sources: ${e.message}`)));
    return;
  }
  const rows = (list.sources || []).map(sourceRow);
  $('#sources').replaceChildren(...(rows.length ? rows : [el('tr', {}, el('td', { colspan: 6, class: 'muted' }, 'No sources.'))]));
}

function when(t) { return t ? new Date(t).toLocaleString() : ''; }

// lastSync is a source's last sync: when, outcome, +added ~changed
// =unchanged -deleted and failed files.
function lastSync(l) {
  if (!l) return el('span', { class: 'muted' }, 'never');
  const counts = [`+${l.added}`, `~${l.changed}`, `=${l.unchanged}`, `-${l.deleted}`];
  if (l.failed) counts.push(`${l.failed} failed`);
  return el('span', {},
    el('span', { class: `badge ${l.outcome}` }, l.outcome), ' ', when(l.at),
    el('div', { class: 'sub' }, counts.join(' '), l.error ? ` · ${l.error}` : ''));
}

function sourceRow(src) {
  const schedule = src.watch ? 'watch: (config)' : (src.every ? `every ${src.every}` : 'on request');
  return el('tr', { 'data-source-id': src.source_id, 'data-outcome': (src.last_sync && src.last_sync.outcome) || 'never' },
    el('td', {}, el('span', { class: 'badge' }, src.kind), ' ', el('span', { class: 'src-url' }, src.url)),
    el('td', {}, src.kb_name),
    el('td', {}, schedule),
    el('td', { class: 'last-sync' }, lastSync(src.last_sync)),
    el('td', {}, when(src.next_sync)),
    el('td', {}, el('button', { type: 'button', class: 'ghost', onclick: (ev) => syncSource(ev.target, src) }, 'Sync now')));
}

async function syncSource(button, src) {
  button.disabled = true;
  try {
    const e = await api('POST', `/sources/${encodeURIComponent(src.source_id)}/sync`);
    if (e.job_id) state.jobLabel.set(e.job_id, `sync ${src.url}`);
  } catch (e) {
    toast(`sync: ${e.message}`);
  }
  button.disabled = false;
  refreshJobs();
  refreshSources();
}

// ------------------------------------------------------- search and ask

async function ask(ev) {
  ev.preventDefault();
  const query = $('#query').value.trim();
  if (!query) return;
  const box = $('#answer');
  box.hidden = false;
  box.textContent = 'Thinking…';
  $('#results').replaceChildren();
  try {
    const resp = await api('POST', '/tools/rag_query', { query, kb_name: state.ns });
    const byId = new Map((resp.context || []).map((c) => [c.id, c]));
    box.replaceChildren(resp.answer || '(no answer)', el('span', { class: 'route' }, `route: ${resp.route}`));
    showSources((resp.sources || []).map((s) => ({ ...s, text: (byId.get(s.chunk_id) || {}).text })));
  } catch (e) {
    box.textContent = `Ask failed: ${e.message}`;
  }
}

async function search() {
  const query = $('#query').value.trim();
  if (!query) return;
  $('#answer').hidden = true;
  try {
    const resp = await api('POST', '/tools/rag_search', { query, kb_name: state.ns });
    showSources(resp.results.map((r) => ({ ...r, chunk_id: r.id })));
    if (resp.results.length === 0) $('#results').replaceChildren(el('li', { class: 'muted' }, 'Nothing found.'));
  } catch (e) {
    toast(`search: ${e.message}`);
  }
}

// showSources lists passages numbered as the answer cites them: [n] is
// the n-th source.
function showSources(sources) {
  $('#results').replaceChildren(...sources.map((s, i) => {
    const meta = [s.page ? `page ${s.page}` : null, named(s.path), `score ${Number(s.score).toFixed(3)}`].filter(Boolean);
    return el('li', { class: s.cited ? 'cited' : '', 'data-chunk': s.chunk_id },
      el('span', { class: 'n' }, `[${i + 1}]`),
      el('div', {},
        el('div', { class: 'source' }, shown(s.source)),
        el('div', { class: 'meta' }, meta.join(' · ')),
        s.text ? el('div', { class: 'snippet' }, s.text.length > 220 ? `${s.text.slice(0, 220)}…` : s.text) : null),
      el('button', { type: 'button', class: 'ghost open-chunk', onclick: () => openChunk(i + 1, s, meta) }, 'Open'));
  }));
}

function openChunk(n, s, meta) {
  $('#chunk-title').textContent = `[${n}] ${shown(s.source)}`;
  $('#chunk-meta').textContent = [...meta, `chunk ${s.chunk_id}`].join(' · ');
  $('#chunk-text').textContent = s.text || '(the chunk text is not in this answer)';
  $('#chunk-dialog').showModal();
}

// ------------------------------------------------------------------ wire

function wire() {
  $('#login-form').addEventListener('submit', login);
  $('#sso-start').addEventListener('click', ssoStart);
  $('#logout').addEventListener('click', logout);
  $('#ns-form').addEventListener('submit', useNamespace);
  $('#search-form').addEventListener('submit', ask);
  $('#search-btn').addEventListener('click', search);
  $('#docs-prev').addEventListener('click', () => pageDocuments(false));
  $('#docs-next').addEventListener('click', () => pageDocuments(true));
  wireDropzone();
}

boot();
