// What every page shares: the API client (a session, as Graylog's interface
// logs in), the router over Graylog 4.0's page URLs, times in the user's
// time zone, and small components.
import { h } from 'preact';
import { useState, useEffect, useCallback } from 'preact/hooks';
import htm from 'htm';

export const html = htm.bind(h);

// --- session -------------------------------------------------------------

// The session id is kept for the tab only (sessionStorage), so a reload
// stays logged in and closing the tab forgets it.
const KEY = 'loggate.session';
export const session = {
  get() { try { return JSON.parse(sessionStorage.getItem(KEY)); } catch { return null; } },
  set(s) { sessionStorage.setItem(KEY, JSON.stringify(s)); },
  clear() { sessionStorage.removeItem(KEY); },
};

// The logged-in user (GET /users/{username}): id, timezone, permissions.
export const me = { user: null };

export class ApiError extends Error {
  constructor(status, body, message) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

// A 401 on any call but the login ends the session: back to the login page,
// which says why, and on to the page that was open after logging in again.
export const loginNotice = { message: '', next: '' };

function expired() {
  const s = session.get();
  session.clear();
  me.user = null;
  // Calls that fail together all come here: the first says why.
  if (s) loginNotice.message = 'Your session has expired. Please log in again.';
  else if (!loginNotice.message) loginNotice.message = 'Please log in.';
  if (location.pathname !== '/login') loginNotice.next = location.pathname + location.search;
  navigate('/login', { replace: true });
}

// api calls /api<path> with the session; it answers the parsed body (text
// for anything but JSON) or throws an ApiError with the API's message.
export async function api(method, path, body, opts = {}) {
  const headers = { Accept: opts.accept || 'application/json', 'X-Requested-With': 'XMLHttpRequest' };
  if (method !== 'GET' && method !== 'HEAD') headers['X-Requested-By'] = 'loggate-ui';
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const s = session.get();
  if (s && !opts.anonymous) headers.Authorization = 'Basic ' + btoa(s.id + ':session');
  const res = await fetch('/api' + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: opts.signal,
  });
  const type = res.headers.get('Content-Type') || '';
  const data = opts.blob ? await res.blob() : type.includes('json') ? await res.json().catch(() => null) : await res.text();
  if (res.status === 401 && !opts.anonymous) {
    expired();
    throw new ApiError(401, data, 'Not logged in');
  }
  if (!res.ok) throw new ApiError(res.status, data, (data && data.message) || res.status + ' ' + res.statusText);
  return data;
}

export async function login(username, password) {
  const s = await api('POST', '/system/sessions', { username, password, host: location.host }, { anonymous: true });
  session.set({ id: s.session_id, username: s.username || username, userId: s.user_id });
  await loadMe();
}

export async function loadMe() {
  const s = session.get();
  me.user = await api('GET', '/users/' + encodeURIComponent(s.username));
}

export async function logout() {
  const s = session.get();
  if (s) await api('DELETE', '/system/sessions/' + encodeURIComponent(s.id)).catch(() => {});
  session.clear();
  me.user = null;
  loginNotice.message = 'You are logged out.';
  loginNotice.next = '';
  navigate('/login');
}

export const q = encodeURIComponent;

// --- router --------------------------------------------------------------

const listeners = new Set();
export function navigate(to, { replace = false } = {}) {
  if (to !== location.pathname + location.search) history[replace ? 'replaceState' : 'pushState'](null, '', to);
  listeners.forEach((f) => f());
}
addEventListener('popstate', () => listeners.forEach((f) => f()));

// useLocation re-renders its component on every navigation.
export function useLocation() {
  const [, tick] = useState(0);
  useEffect(() => {
    const f = () => tick((n) => n + 1);
    listeners.add(f);
    return () => listeners.delete(f);
  }, []);
  return location;
}

// --- time ----------------------------------------------------------------

// The user's time zone (their setting, else the browser's).
export function timeZone() {
  return (me.user && me.user.timezone) || Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const formats = new Map();
export function fmtTime(v) {
  if (!v) return '';
  const d = new Date(v);
  if (isNaN(d)) return String(v);
  const tz = timeZone();
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit',
      minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3, hourCycle: 'h23',
    });
    formats.set(tz, f);
  }
  const p = {};
  for (const part of f.formatToParts(d)) p[part.type] = part.value;
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}.${p.fractionalSecond}`;
}

export function fmtBytes(n) {
  if (n == null) return '';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : n) + ' ' + u[i];
}

// --- components ----------------------------------------------------------

// useApi loads path and reloads it on demand.
export function useApi(path) {
  const [state, set] = useState({ loading: true });
  const [n, setN] = useState(0);
  useEffect(() => {
    if (!path) return undefined;
    let live = true;
    set((s) => ({ ...s, loading: true }));
    api('GET', path).then((data) => live && set({ data }), (error) => live && set({ error }));
    return () => { live = false; };
  }, [path, n]);
  return { ...state, reload: useCallback(() => setN((x) => x + 1), []) };
}

// useAction runs a call, keeping its error and whether it runs.
export function useAction() {
  const [state, set] = useState({ busy: false, error: null, done: '' });
  const run = useCallback(async (f, done = '') => {
    set({ busy: true, error: null, done: '' });
    try {
      const r = await f();
      set({ busy: false, error: null, done });
      return r;
    } catch (e) {
      set({ busy: false, error: e, done: '' });
      return undefined;
    }
  }, []);
  return [state, run];
}

export function Err({ error }) {
  if (!error) return null;
  return html`<p class="error" role="alert">${error.message || String(error)}</p>`;
}

export function Status({ state }) {
  if (state.error) return html`<${Err} error=${state.error} />`;
  if (state.done) return html`<p class="ok" role="status">${state.done}</p>`;
  return null;
}

export function Loading({ r }) {
  if (r.error) return html`<${Err} error=${r.error} />`;
  if (!r.data) return html`<p class="muted">Loading…</p>`;
  return null;
}

export function Page({ title, children, actions }) {
  useEffect(() => { document.title = title + ' – loggate'; }, [title]);
  return html`<section class="page"><header class="page-head"><h1>${title}</h1>${actions}</header>${children}</section>`;
}

export function Table({ cols, rows, empty = 'Nothing here yet.', rowKey }) {
  if (!rows || rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<table class="grid"><thead><tr>${cols.map((c) => html`<th>${c[0]}</th>`)}</tr></thead>
    <tbody>${rows.map((r, i) => html`<tr key=${rowKey ? rowKey(r) : i}>${cols.map((c) => html`<td>${c[1](r)}</td>`)}</tr>`)}</tbody></table>`;
}

// field binds an input to a key of a state object.
export function field(obj, set, key) {
  return {
    name: key,
    value: obj[key] ?? '',
    // An update of the latest state, so that several inputs before the
    // next render (autofill) all count.
    onInput: (e) => {
      const v = e.currentTarget.type === 'checkbox' ? e.currentTarget.checked : e.currentTarget.value;
      set((o) => ({ ...o, [key]: v }));
    },
  };
}
