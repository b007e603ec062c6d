// The loggate API browser. It reads the OpenAPI document next to it, lists
// every operation and sends the ones the user tries. Credentials live in the
// variable `authorization` only: never in storage, cookies or URLs. Server
// data reaches the page through textContent only.
'use strict';

(() => {
  // The page lives at <api>/api-browser/, so the API root is one level up,
  // wherever the server is published.
  const apiRoot = new URL('../', document.baseURI);
  const browserHeader = 'Graylog API Browser';
  const methodOrder = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

  let authorization = null; // "Basic …" while logged in
  let username = '';

  const $ = (id) => document.getElementById(id);

  // el builds an element; children are nodes or text.
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k.startsWith('data-')) e.setAttribute(k, v);
      else if (k in e) e[k] = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.append(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }

  // basic encodes credentials as UTF-8, which btoa alone cannot.
  function basic(user, password) {
    let bin = '';
    for (const b of new TextEncoder().encode(user + ':' + password)) bin += String.fromCharCode(b);
    return 'Basic ' + btoa(bin);
  }

  // send calls the API. path is relative to the API root and already encoded.
  async function send(method, path, { auth = authorization, body } = {}) {
    const headers = {
      'Accept': 'application/json',
      'X-Requested-By': browserHeader,
      // Keeps the server from asking the browser for its own login dialog.
      'X-Requested-With': 'XMLHttpRequest',
    };
    if (auth) headers['Authorization'] = auth;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const url = new URL(path.replace(/^\/+/, ''), apiRoot);
    return fetch(url, { method, headers, body, credentials: 'omit', cache: 'no-store' });
  }

  async function login(event) {
    event.preventDefault();
    const user = $('username').value;
    const auth = basic(user, $('password').value);
    const error = $('login-error');
    const button = $('login-button');
    error.hidden = true;
    button.disabled = true;
    try {
      // GET /cluster needs an authenticated user and no permission.
      const resp = await send('GET', '/cluster', { auth });
      if (!resp.ok) {
        error.textContent = resp.status === 401
          ? 'Wrong username or password (401 Unauthorized).'
          : 'Cannot log in: the server answered ' + resp.status + ' ' + resp.statusText + '.';
        error.hidden = false;
        return;
      }
      authorization = auth;
      username = user;
      $('password').value = '';
      await showBrowser();
    } catch (e) {
      error.textContent = 'Cannot reach the server: ' + e.message;
      error.hidden = false;
    } finally {
      button.disabled = false;
    }
  }

  function logout() {
    authorization = null;
    username = '';
    $('resources').replaceChildren();
    $('browser').hidden = true;
    $('signed-in').hidden = true;
    $('logout').hidden = true;
    $('login').hidden = false;
    $('username').focus();
  }

  async function showBrowser() {
    $('login').hidden = true;
    $('browser').hidden = false;
    $('signed-in').textContent = 'Logged in as ' + username;
    $('signed-in').hidden = false;
    $('logout').hidden = false;
    const loadError = $('load-error');
    loadError.hidden = true;
    try {
      const resp = await fetch(new URL('openapi.json', document.baseURI), { cache: 'no-store', credentials: 'omit' });
      if (!resp.ok) throw new Error('the server answered ' + resp.status);
      render(await resp.json());
    } catch (e) {
      loadError.textContent = 'Cannot load the API description: ' + e.message;
      loadError.hidden = false;
    }
  }

  function render(doc) {
    $('api-version').textContent = 'API ' + doc.info.version;
    const byTag = new Map(doc.tags.map((t) => [t.name, []]));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const tag = (op.tags && op.tags[0]) || 'Other';
        if (!byTag.has(tag)) byTag.set(tag, []);
        byTag.get(tag).push({ path, method, op });
      }
    }
    const sections = [];
    for (const [tag, ops] of byTag) {
      if (ops.length === 0) continue;
      ops.sort((a, b) => shown(a).localeCompare(shown(b)) ||
        methodOrder.indexOf(a.method) - methodOrder.indexOf(b.method));
      sections.push(el('section', { class: 'resource', 'data-tag': tag },
        el('h2', {}, tag),
        ...ops.map(operation)));
    }
    $('resources').replaceChildren(...sections);
    applyFilter();
  }

  // shown is the path as the route declares it.
  const shown = (o) => o.op['x-path-template'] || o.path;

  function operation({ path, method, op }) {
    const M = method.toUpperCase();
    const display = shown({ path, op });
    const security = op.security && op.security.length > 0;
    const head = el('button', { type: 'button', class: 'op-head', 'data-role': 'toggle', 'aria-expanded': 'false' },
      el('span', { class: 'method ' + method }, M),
      el('span', { class: 'path' }, display),
      el('span', { class: 'summary' }, op.summary || ''),
      op.deprecated ? el('span', { class: 'badge deprecated' }, 'deprecated') : null,
      security ? null : el('span', { class: 'badge public' }, 'public'),
      op['x-permission'] ? el('span', { class: 'perm', title: 'Required permission' }, op['x-permission']) : null);
    const body = el('div', { class: 'op-body', 'data-role': 'panel', hidden: true });
    const box = el('div', {
      class: 'op' + (op.deprecated ? ' deprecated' : ''),
      'data-op': M + ' ' + display,
      'data-search': (M + ' ' + display + ' ' + (op.summary || '')).toLowerCase(),
    }, head, body);
    head.addEventListener('click', () => {
      const open = body.hidden;
      if (open && body.childElementCount === 0) body.append(...form(path, M, op));
      body.hidden = !open;
      head.setAttribute('aria-expanded', String(open));
    });
    return box;
  }

  // form builds the panel of one operation: its description, an input per
  // parameter, the body and the result of the last try.
  function form(path, method, op) {
    const params = op.parameters || [];
    const inputs = params.map((p) => el('input', {
      'data-param': p.name, 'data-in': p.in, required: p.required,
      placeholder: p.schema && p.schema.enum ? p.schema.enum.join(' | ') : (p.schema && p.schema.type) || '',
      'aria-label': p.name,
    }));
    const parts = [el('p', {}, op.description || '')];
    if (params.length > 0) {
      parts.push(el('table', {},
        el('thead', {}, el('tr', {}, el('th', {}, 'Parameter'), el('th', {}, 'In'), el('th', {}, 'Value'), el('th', {}, 'Description'))),
        el('tbody', {}, ...params.map((p, i) => el('tr', {},
          el('td', {}, p.name + (p.required ? ' *' : '')),
          el('td', {}, p.in),
          el('td', {}, inputs[i]),
          el('td', {}, p.description || ''))))));
    }
    let bodyInput = null;
    const media = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
    // Methods that carry bodies get a field even when the route declares no
    // example, so that every operation can be tried.
    if (media || ['POST', 'PUT', 'PATCH'].includes(method)) {
      const example = media ? media.example : undefined;
      bodyInput = el('textarea', {
        'data-role': 'body', spellcheck: false, 'aria-label': 'JSON body',
        value: example === undefined ? '' : (typeof example === 'string' ? example : JSON.stringify(example, null, 2)),
      });
      parts.push(el('label', {}, 'JSON body'), bodyInput);
    }
    const status = el('div', { class: 'status', 'data-role': 'status' });
    const headers = el('pre', { 'data-role': 'headers' });
    const response = el('pre', { 'data-role': 'response' });
    const result = el('div', { class: 'result', 'data-role': 'result', hidden: true }, status,
      el('h3', {}, 'Headers'), headers, el('h3', {}, 'Body'), response);
    const tryIt = el('button', { type: 'button', 'data-role': 'try' }, 'Try it');
    tryIt.addEventListener('click', () => run(path, method, inputs, bodyInput, { tryIt, result, status, headers, response }));
    parts.push(tryIt, result);
    return parts;
  }

  async function run(path, method, inputs, bodyInput, out) {
    const show = (state, text, ok) => {
      out.status.textContent = text;
      out.status.className = 'status ' + (ok ? 'ok' : 'fail');
      out.result.dataset.status = state;
      out.result.hidden = false;
    };
    let url = path;
    const query = new URLSearchParams();
    for (const input of inputs) {
      const name = input.dataset.param;
      const value = input.value;
      if (input.dataset.in === 'path') {
        if (value === '') {
          out.headers.textContent = '';
          out.response.textContent = '';
          show('invalid', 'Fill in the path parameter ' + name + '.', false);
          return;
        }
        url = url.replace('{' + name + '}', encodeURIComponent(value));
      } else if (input.dataset.in === 'query' && value !== '') {
        query.append(name, value);
      }
    }
    if ([...query].length > 0) url += '?' + query.toString();
    const body = bodyInput && bodyInput.value.trim() !== '' ? bodyInput.value : undefined;
    out.tryIt.disabled = true;
    delete out.result.dataset.status;
    try {
      const resp = await send(method, url, { body });
      const text = await resp.text();
      out.headers.textContent = [...resp.headers].map(([k, v]) => k + ': ' + v).join('\n');
      out.response.textContent = pretty(text, resp.headers.get('Content-Type'));
      show(String(resp.status), resp.status + ' ' + resp.statusText + ' — ' + method + ' ' + new URL(url.replace(/^\/+/, ''), apiRoot).pathname, resp.ok);
    } catch (e) {
      out.headers.textContent = '';
      out.response.textContent = '';
      show('error', 'The request failed: ' + e.message, false);
    } finally {
      out.tryIt.disabled = false;
    }
  }

  function pretty(text, contentType) {
    if (!contentType || !contentType.includes('json') || text === '') return text;
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }

  function applyFilter() {
    const q = $('filter').value.trim().toLowerCase();
    for (const section of $('resources').children) {
      let any = false;
      for (const op of section.querySelectorAll('.op')) {
        const hit = q === '' || op.dataset.search.includes(q) || section.dataset.tag.toLowerCase().includes(q);
        op.hidden = !hit;
        any = any || hit;
      }
      section.hidden = !any;
    }
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('login-form').addEventListener('submit', login);
    $('logout').addEventListener('click', logout);
    $('filter').addEventListener('input', applyFilter);
    $('username').focus();
  });
})();
