// The application: login, the layout, and the pages by Graylog 4.0's URLs.
import { render } from 'preact';
import { useState, useEffect, useRef, useErrorBoundary } from 'preact/hooks';
import { html, session, me, login, loadMe, logout, navigate, useLocation, loginNotice, Err } from './lib.js';
import { SearchPage } from './search.js';
import { StreamsPage } from './streams.js';
import { InputsPage } from './inputs.js';
import * as sys from './system.js';

// Routes: a pattern of path segments (":x" captures) and its page.
const routes = [
  ['search', SearchPage],
  ['streams/:id/search', SearchPage],
  ['streams', StreamsPage],
  ['system', sys.OverviewPage],
  ['system/overview', sys.OverviewPage],
  ['system/nodes', sys.NodesPage],
  ['system/inputs', InputsPage],
  ['system/outputs', sys.OutputsPage],
  ['system/indices', sys.IndicesPage],
  ['system/users', sys.UsersPage],
  ['system/users/tokens/:userId', sys.TokensPage],
  ['system/authentication', sys.UsersPage],
  ['system/roles', sys.RolesPage],
  ['system/authentication/services', sys.AuthServicesPage],
  ['system/logging', sys.LoggingPage],
  ['system/grokpatterns', sys.GrokPage],
  ['system/compatibility', sys.CompatPage],
];

function match(path) {
  const segs = path.split('/').filter(Boolean);
  for (const [pattern, page] of routes) {
    const ps = pattern.split('/');
    if (ps.length !== segs.length) continue;
    const params = {};
    if (ps.every((p, i) => (p[0] === ':' ? ((params[p.slice(1)] = decodeURIComponent(segs[i])), true) : p === segs[i]))) {
      return [page, params];
    }
  }
  return [null, {}];
}

const nav = [
  ['/search', 'Search'],
  ['/streams', 'Streams'],
  ['/system/overview', 'System'],
];
const systemNav = [
  ['/system/overview', 'Overview'],
  ['/system/nodes', 'Nodes'],
  ['/system/inputs', 'Inputs'],
  ['/system/outputs', 'Outputs'],
  ['/system/indices', 'Indices'],
  ['/system/users', 'Users'],
  ['/system/roles', 'Roles'],
  ['/system/authentication/services', 'Authentication'],
  ['/system/logging', 'Logging'],
  ['/system/grokpatterns', 'Grok patterns'],
  ['/system/compatibility', 'Compatibility'],
];

// Guard keeps a page's failure to that page: the error is shown, the
// navigation stays usable.
function Guard({ children }) {
  const [error] = useErrorBoundary();
  if (error) return html`<section class="page"><h1>This page failed</h1><p class="error" role="alert">${String(error && error.stack || error)}</p></section>`;
  return children;
}

function Layout({ path, children }) {
  const active = (href) => (path === href || (href !== '/search' && path.startsWith(href.split('/').slice(0, 2).join('/') + '/')) || (href === '/search' && path.endsWith('/search')));
  const system = path.startsWith('/system');
  return html`<div class="layout">
    <a class="skip" href="#main">Skip to content</a>
    <nav class="top" aria-label="Main">
      <a class="brand" href="/search">loggate</a>
      ${nav.map(([href, label]) => html`<a href=${href} class=${active(href) ? 'active' : ''} aria-current=${active(href) ? 'page' : undefined}>${label}</a>`)}
      <span class="spacer"></span>
      <span id="signed-in" class="muted">${me.user && me.user.username}</span>
      <button id="logout" class="link" onClick=${logout}>Log out</button>
    </nav>
    <div class="body">
      ${system && html`<nav class="side" aria-label="System">${systemNav.map(([href, label]) =>
        html`<a href=${href} class=${path.startsWith(href) ? 'active' : ''}>${label}</a>`)}</nav>`}
      <main id="main" tabindex="-1"><${Guard} key=${path}>${children}<//></main>
    </div>
  </div>`;
}

function LoginPage() {
  const [form, setForm] = useState({ username: '', password: '' });
  const [state, setState] = useState({ busy: false, error: null });
  const user = useRef();
  useEffect(() => {
    document.title = 'Log in – loggate';
    user.current.focus();
    performance.mark('login:usable');
  }, []);
  const submit = async (e) => {
    e.preventDefault();
    setState({ busy: true, error: null });
    try {
      await login(form.username, form.password);
      const next = loginNotice.next || '/search';
      loginNotice.message = '';
      loginNotice.next = '';
      navigate(next, { replace: true });
    } catch (err) {
      setState({ busy: false, error: err.status === 401 ? new Error('Invalid username or password.') : err });
    }
  };
  return html`<main class="login">
    <form id="login-form" onSubmit=${submit}>
      <h1>loggate</h1>
      ${loginNotice.message && html`<p id="login-notice" class="notice" role="status">${loginNotice.message}</p>`}
      <label>Username <input id="username" ref=${user} autocomplete="username" value=${form.username}
        onInput=${(e) => setForm({ ...form, username: e.currentTarget.value })} required /></label>
      <label>Password <input id="password" type="password" autocomplete="current-password" value=${form.password}
        onInput=${(e) => setForm({ ...form, password: e.currentTarget.value })} required /></label>
      <div id="login-error"><${Err} error=${state.error} /></div>
      <button id="login-button" class="primary" disabled=${state.busy}>${state.busy ? 'Logging in…' : 'Log in'}</button>
    </form>
  </main>`;
}

function App() {
  const loc = useLocation();
  const [ready, setReady] = useState(!!me.user);
  const path = loc.pathname.replace(/\/+$/, '') || '/';
  useEffect(() => {
    if (path === '/login' || me.user) { setReady(true); return; }
    if (!session.get()) {
      loginNotice.next = path === '/' ? '' : loc.pathname + loc.search;
      navigate('/login', { replace: true });
      return;
    }
    loadMe().then(() => setReady(true), () => {});
  }, [path]);
  if (path === '/login') return html`<${LoginPage} />`;
  if (!ready || !me.user) return html`<p class="muted pad">Loading…</p>`;
  if (path === '/') {
    navigate('/search', { replace: true });
    return null;
  }
  const [Page, params] = match(path);
  return html`<${Layout} path=${path}>${Page
    ? html`<${Page} key=${path} params=${params} />`
    : html`<section class="page"><h1>Not found</h1><p>loggate has no page at ${path}.</p><p><a href="/search">Search</a></p></section>`}<//>`;
}

// Links stay in the application; the API and downloads are left alone.
document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a[href]');
  if (!a || a.target || a.hasAttribute('download') || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const u = new URL(a.href, location.href);
  if (u.origin !== location.origin || u.pathname.startsWith('/api/') || u.hash && u.pathname === location.pathname) return;
  e.preventDefault();
  navigate(u.pathname + u.search);
});

render(html`<${App} />`, document.getElementById('app'));
