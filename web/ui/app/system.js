// The System pages.
import { useState } from 'preact/hooks';
import { html, api, q, me, navigate, useApi, useAction, Status, Loading, Page, Table, Err, field, fmtTime, fmtBytes } from './lib.js';

export function OverviewPage() {
  const sys = useApi('/system');
  const journal = useApi('/system/journal');
  const notes = useApi('/system/notifications');
  const nodes = useApi('/system/cluster/nodes');
  return html`<${Page} title="System overview">
    <${Loading} r=${sys} />
    ${sys.data && html`<dl class="facts" id="overview">
      <dt>Version</dt><dd>${sys.data.version}</dd><dt>Node</dt><dd>${sys.data.node_id}</dd>
      <dt>Host</dt><dd>${sys.data.hostname}</dd><dt>Lifecycle</dt><dd>${sys.data.lifecycle}</dd>
      <dt>Processing</dt><dd>${sys.data.is_processing ? 'running' : 'paused'}</dd><dt>Time zone</dt><dd>${sys.data.timezone}</dd>
      <dt>Started</dt><dd>${fmtTime(sys.data.started_at)}</dd></dl>`}
    <h2>Notifications</h2>
    <${Loading} r=${notes} />
    ${notes.data && html`<${Table} empty="No notifications: everything is fine." rows=${notes.data.notifications}
      cols=${[['Type', (n) => n.type], ['Severity', (n) => n.severity], ['Since', (n) => fmtTime(n.timestamp)], ['Details', (n) => JSON.stringify(n.details || {})]]} />`}
    <h2>Journal</h2>
    ${journal.data && html`<dl class="facts">
      <dt>Enabled</dt><dd>${String(journal.data.enabled)}</dd><dt>Uncommitted entries</dt><dd>${journal.data.uncommitted_journal_entries}</dd>
      <dt>Size</dt><dd>${fmtBytes(journal.data.journal_size)} of ${fmtBytes(journal.data.journal_size_limit)}</dd>
      <dt>Segments</dt><dd>${journal.data.number_of_segments}</dd></dl>`}
    <h2>Nodes</h2>
    ${nodes.data && html`<${NodeTable} nodes=${nodes.data.nodes} />`}
  <//>`;
}

function NodeTable({ nodes }) {
  return html`<${Table} rows=${nodes} cols=${[['Node', (n) => n.node_id], ['Host', (n) => n.hostname], ['Address', (n) => n.transport_address],
    ['Leader', (n) => (n.is_master ? 'yes' : '')], ['Last seen', (n) => fmtTime(n.last_seen)]]} />`;
}

export function NodesPage() {
  const nodes = useApi('/system/cluster/nodes');
  return html`<${Page} title="Nodes"><${Loading} r=${nodes} />${nodes.data && html`<${NodeTable} nodes=${nodes.data.nodes} />`}<//>`;
}

export function OutputsPage() {
  const outputs = useApi('/system/outputs');
  const [form, setForm] = useState({ title: '', hostname: '127.0.0.1', port: '12201', protocol: 'TCP' });
  const [state, run] = useAction();
  const create = (e) => {
    e.preventDefault();
    run(async () => {
      await api('POST', '/system/outputs', { title: form.title, type: 'org.graylog2.outputs.GelfOutput', streams: [],
        configuration: { hostname: form.hostname, port: parseInt(form.port, 10), protocol: form.protocol } });
      outputs.reload();
    }, 'Output created: attach it to streams on the Streams page.');
  };
  const del = (id) => run(async () => { await api('DELETE', `/system/outputs/${q(id)}`); outputs.reload(); });
  return html`<${Page} title="Outputs">
    <form class="inline" onSubmit=${create}>
      <input aria-label="Title" placeholder="Title" required ...${field(form, setForm, 'title')} />
      <input aria-label="Host" ...${field(form, setForm, 'hostname')} />
      <input aria-label="Port" type="number" ...${field(form, setForm, 'port')} />
      <select aria-label="Protocol" ...${field(form, setForm, 'protocol')}><option>TCP</option><option>UDP</option></select>
      <button class="primary">Create GELF output</button>
    </form>
    <${Status} state=${state} /><${Loading} r=${outputs} />
    ${outputs.data && html`<${Table} rows=${outputs.data.outputs} cols=${[['Title', (o) => o.title], ['Type', (o) => o.type],
      ['Target', (o) => `${o.configuration.hostname}:${o.configuration.port} ${o.configuration.protocol || ''}`],
      ['', (o) => html`<button class="danger" onClick=${() => del(o.id)}>Delete</button>`]]} />`}
  <//>`;
}

export function IndicesPage() {
  const sets = useApi('/system/indices/index_sets?stats=true');
  const [open, setOpen] = useState(null);
  return html`<${Page} title="Index sets and indices">
    <${Loading} r=${sets} />
    ${sets.data && html`<${Table} rows=${sets.data.index_sets} cols=${[
      ['Title', (s) => html`<button class="link" aria-expanded=${open === s.id} onClick=${() => setOpen(open === s.id ? null : s.id)}>${s.title}</button>${s.default ? ' (default)' : ''}`],
      ['Prefix', (s) => s.index_prefix], ['Rotation', (s) => (s.rotation_strategy_class || '').split('.').pop()],
      ['Retention', (s) => (s.retention_strategy_class || '').split('.').pop()],
      ['Indices', (s) => sets.data.stats && sets.data.stats[s.id] ? sets.data.stats[s.id].indices : ''],
      ['Messages', (s) => sets.data.stats && sets.data.stats[s.id] ? sets.data.stats[s.id].documents : ''],
      ['Size', (s) => sets.data.stats && sets.data.stats[s.id] ? fmtBytes(sets.data.stats[s.id].size) : '']]} />`}
    ${open && html`<${IndexList} id=${open} />`}
  <//>`;
}

function IndexList({ id }) {
  const list = useApi(`/system/indexer/indices/${q(id)}/list`);
  return html`<h2>Indices</h2><${Loading} r=${list} />${list.data && html`<${Table} rows=${list.data.indices}
    cols=${[['Index', (i) => i.index_name], ['Messages', (i) => i.primary_shards && i.primary_shards.documents && i.primary_shards.documents.count],
      ['Size', (i) => fmtBytes(i.primary_shards && i.primary_shards.store_size_bytes)], ['Reopened', (i) => (i.reopened ? 'yes' : '')]]} />`}`;
}

export function UsersPage() {
  const users = useApi('/users/paginated?per_page=0');
  const roles = useApi('/roles');
  const [form, setForm] = useState({ username: '', full_name: '', email: '', password: '', roles: 'Reader' });
  const [edit, setEdit] = useState(null);
  const [state, run] = useAction();
  const create = (e) => {
    e.preventDefault();
    run(async () => {
      await api('POST', '/users', { username: form.username, full_name: form.full_name, email: form.email, password: form.password,
        roles: form.roles.split(',').map((r) => r.trim()).filter(Boolean), permissions: [] });
      setForm({ ...form, username: '', full_name: '', email: '', password: '' });
      users.reload();
    }, 'User created.');
  };
  const status = (u, s) => run(async () => { await api('PUT', `/users/${q(u.id)}/status/${s}`); users.reload(); });
  return html`<${Page} title="Users">
    <form id="user-create" class="inline" onSubmit=${create}>
      <input aria-label="Username" placeholder="Username" required ...${field(form, setForm, 'username')} />
      <input aria-label="Full name" placeholder="Full name" ...${field(form, setForm, 'full_name')} />
      <input aria-label="E-mail" placeholder="E-mail" type="email" ...${field(form, setForm, 'email')} />
      <input aria-label="Password" placeholder="Password" type="password" autocomplete="new-password" required ...${field(form, setForm, 'password')} />
      <input aria-label="Roles" placeholder="Roles, comma-separated" list="role-names" ...${field(form, setForm, 'roles')} />
      <datalist id="role-names">${roles.data && roles.data.roles.map((r) => html`<option value=${r.name} />`)}</datalist>
      <button class="primary">Create user</button>
    </form>
    <${Status} state=${state} /><${Loading} r=${users} />
    ${users.data && html`<${Table} rows=${users.data.users} rowKey=${(u) => u.id} cols=${[
      ['Username', (u) => u.username], ['Name', (u) => u.full_name], ['E-mail', (u) => u.email],
      ['Roles', (u) => (u.roles || []).join(', ')], ['Status', (u) => u.account_status || (u.read_only ? 'root' : '')],
      ['', (u) => html`<span class="actions">
        <a href=${`/system/users/tokens/${q(u.id)}`}>Edit tokens</a>
        ${!u.read_only && html`<button class="link" onClick=${() => setEdit(edit === u.id ? null : u.id)}>Edit</button>
          ${u.account_status === 'disabled'
            ? html`<button class="link" onClick=${() => status(u, 'enabled')}>Enable</button>`
            : html`<button class="link" onClick=${() => status(u, 'disabled')}>Disable</button>`}`}</span>`]]} />`}
    ${edit && users.data && html`<${UserEditor} key=${edit} u=${users.data.users.find((u) => u.id === edit)} done=${() => { setEdit(null); users.reload(); }} />`}
  <//>`;
}

function UserEditor({ u, done }) {
  const [form, setForm] = useState({ full_name: u.full_name || '', email: u.email || '', roles: (u.roles || []).join(', '), timezone: u.timezone || '' });
  const [state, run] = useAction();
  const save = (e) => {
    e.preventDefault();
    run(async () => {
      await api('PUT', `/users/${q(u.id)}`, { full_name: form.full_name, email: form.email, timezone: form.timezone || null,
        roles: form.roles.split(',').map((r) => r.trim()).filter(Boolean) });
      done();
    });
  };
  return html`<form class="editor inline" onSubmit=${save}><h2>Edit ${u.username}</h2>
    <input aria-label="Full name" ...${field(form, setForm, 'full_name')} />
    <input aria-label="E-mail" ...${field(form, setForm, 'email')} />
    <input aria-label="Roles" ...${field(form, setForm, 'roles')} />
    <input aria-label="Time zone" placeholder="Time zone, e.g. Europe/Berlin" ...${field(form, setForm, 'timezone')} />
    <button class="primary">Save</button><button type="button" onClick=${done}>Cancel</button><${Status} state=${state} /></form>`;
}

// TokensPage is System / Authentication's token editor, as the
// specification describes it: select a user, name and create a token,
// reveal or copy its value, delete it with a Delete button. Only the
// owner manages their tokens, administrators included.
export function TokensPage({ params }) {
  const userId = params.userId;
  const users = useApi('/users/paginated?per_page=0');
  const own = me.user && me.user.id === userId;
  const tokens = useApi(own ? `/users/${q(userId)}/tokens` : null);
  const [name, setName] = useState('');
  const [shown, setShown] = useState({});
  const [created, setCreated] = useState(null);
  const [state, run] = useAction();
  // The root user is not in the paginated list: it is the logged-in one.
  const all = users.data ? [...users.data.users] : [];
  if (me.user && !all.some((u) => u.id === me.user.id)) all.unshift(me.user);
  const user = all.find((u) => u.id === userId);
  const create = (e) => {
    e.preventDefault();
    run(async () => {
      const t = await api('POST', `/users/${q(userId)}/tokens/${q(name)}`);
      setCreated(t);
      setShown({ ...shown, [t.id]: true });
      setName('');
      tokens.reload();
    }, 'Token created.');
  };
  const del = (t) => run(async () => { await api('DELETE', `/users/${q(userId)}/tokens/${q(t.id)}`); tokens.reload(); }, `Token ${t.name} deleted.`);
  return html`<${Page} title=${'Tokens of ' + (user ? user.username : userId)}>
    <label class="inline">User <select id="token-user" value=${userId} onChange=${(e) => navigate(`/system/users/tokens/${q(e.currentTarget.value)}`)}>
      ${all.map((u) => html`<option value=${u.id}>${u.username}</option>`)}
    </select></label>
    ${!own && html`<p class="notice" id="token-not-owner">Only the owner of a token may manage it, administrators included: log in as ${user ? user.username : 'this user'} to edit these tokens.</p>`}
    ${own && html`
      <form id="token-create" class="inline" onSubmit=${create}>
        <input id="token-name" aria-label="Token name" placeholder="Token name" required value=${name} onInput=${(e) => setName(e.currentTarget.value)} />
        <button id="token-create-button" class="primary" disabled=${state.busy}>Create token</button>
      </form>
      <${Status} state=${state} />
      ${created && html`<p class="notice" id="token-created">Token <strong>${created.name}</strong> created. Use it as the user name of HTTP basic authentication with the password <code>token</code>.</p>`}
      <${Loading} r=${tokens} />
      ${tokens.data && html`<${Table} empty="This user has no tokens." rows=${tokens.data.tokens} rowKey=${(t) => t.id} cols=${[
        ['Name', (t) => html`<span class="token-name">${t.name}</span>`],
        ['Token', (t) => html`<${TokenValue} t=${t} shown=${!!shown[t.id]} toggle=${() => setShown({ ...shown, [t.id]: !shown[t.id] })} />`],
        ['Last access', (t) => (t.last_access && !t.last_access.startsWith('1970') ? fmtTime(t.last_access) : 'never')],
        ['', (t) => html`<button class="danger token-delete" data-token=${t.name} onClick=${() => del(t)}>Delete</button>`]]} />`}`}
  <//>`;
}

function TokenValue({ t, shown, toggle }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(t.token);
      setCopied('Copied');
    } catch {
      // Without clipboard access (plain http on another host): select the
      // value so that Ctrl+C copies it.
      toggle();
      setCopied('Press Ctrl+C to copy');
    }
  };
  return html`<span class="token" data-token=${t.name}>
    ${shown ? html`<input class="token-value" readonly value=${t.token} size="28" onFocus=${(e) => e.currentTarget.select()} />` : html`<span class="masked">••••••••••••</span>`}
    <button class="link token-reveal" onClick=${toggle}>${shown ? 'Hide' : 'Reveal'}</button>
    <button class="link token-copy" onClick=${copy}>Copy</button> <span class="muted small" role="status">${copied}</span></span>`;
}

export function RolesPage() {
  const roles = useApi('/roles');
  const [form, setForm] = useState({ name: '', description: '', permissions: '' });
  const [state, run] = useAction();
  const create = (e) => {
    e.preventDefault();
    run(async () => {
      await api('POST', '/roles', { name: form.name, description: form.description, read_only: false,
        permissions: form.permissions.split(',').map((p) => p.trim()).filter(Boolean) });
      setForm({ name: '', description: '', permissions: '' });
      roles.reload();
    }, 'Role created.');
  };
  const del = (r) => run(async () => { await api('DELETE', `/roles/${q(r.name)}`); roles.reload(); });
  return html`<${Page} title="Roles">
    <form class="inline" onSubmit=${create}>
      <input aria-label="Name" placeholder="Name" required ...${field(form, setForm, 'name')} />
      <input aria-label="Description" placeholder="Description" ...${field(form, setForm, 'description')} />
      <input aria-label="Permissions" placeholder="Permissions, e.g. streams:read,metrics:*" class="wide" required ...${field(form, setForm, 'permissions')} />
      <button class="primary">Create role</button>
    </form>
    <${Status} state=${state} /><${Loading} r=${roles} />
    ${roles.data && html`<${Table} rows=${roles.data.roles} cols=${[['Name', (r) => r.name], ['Description', (r) => r.description],
      ['Permissions', (r) => html`<span class="small">${(r.permissions || []).join(', ')}</span>`],
      ['', (r) => (r.read_only ? html`<span class="muted">built in</span>` : html`<button class="danger" onClick=${() => del(r)}>Delete</button>`)]]} />`}
  <//>`;
}

const emptyBackend = {
  type: 'ldap', title: '', host: '', port: '389', transport_security: 'none', verify_certificates: true,
  system_user_dn: '', system_user_password: '', user_search_base: '', user_search_pattern: '(&(objectClass=inetOrgPerson)(uid={0}))',
  user_name_attribute: 'uid', user_full_name_attribute: 'cn', user_unique_id_attribute: 'entryUUID', default_roles: 'Reader',
  test_user: '', test_password: '',
};

export function AuthServicesPage() {
  const backends = useApi('/system/authentication/services/backends');
  const active = useApi('/system/authentication/services/configuration');
  const roles = useApi('/authz/roles?per_page=0');
  const [form, setForm] = useState(emptyBackend);
  const [result, setResult] = useState(null);
  const [state, run] = useAction();
  const roleIds = () => form.default_roles.split(',').map((n) => n.trim()).filter(Boolean)
    .map((n) => { const r = roles.data && roles.data.roles.find((x) => x.name === n); return r ? r.id : n; });
  const body = () => ({
    title: form.title, description: '', default_roles: roleIds(),
    config: { type: form.type, servers: [{ host: form.host, port: parseInt(form.port, 10) }], transport_security: form.transport_security,
      verify_certificates: form.verify_certificates, system_user_dn: form.system_user_dn,
      system_user_password: form.system_user_password ? { set_value: form.system_user_password } : { keep_value: true },
      user_search_base: form.user_search_base, user_search_pattern: form.user_search_pattern, user_name_attribute: form.user_name_attribute,
      user_full_name_attribute: form.user_full_name_attribute, user_unique_id_attribute: form.user_unique_id_attribute },
  });
  const test = (kind) => run(async () => {
    const b = { backend_configuration: body() };
    if (kind === 'login') b.user_login = { username: form.test_user, password: form.test_password };
    setResult(await api('POST', `/system/authentication/services/test/backend/${kind}`, b));
  });
  const create = (e) => {
    e.preventDefault();
    run(async () => { await api('POST', '/system/authentication/services/backends', body()); backends.reload(); }, 'Service created. Activate it to log users in through it.');
  };
  const activate = (id) => run(async () => { await api('POST', '/system/authentication/services/configuration', { active_backend: id }); active.reload(); });
  const activeId = active.data && active.data.configuration && active.data.configuration.active_backend;
  const list = backends.data && (backends.data.backends || []);
  return html`<${Page} title="Authentication services">
    <${Loading} r=${backends} />
    ${list && html`<${Table} empty="No directory configured: users log in with local passwords." rows=${list} cols=${[
      ['Title', (b) => b.title], ['Type', (b) => b.config && b.config.type],
      ['Servers', (b) => b.config && (b.config.servers || []).map((s) => s.host + ':' + s.port).join(', ')],
      ['', (b) => (b.id === activeId ? html`<span class="badge on">Active</span> <button class="link" onClick=${() => activate(null)}>Deactivate</button>`
        : html`<button class="link" onClick=${() => activate(b.id)}>Activate</button>`)]]} />`}
    <h2>Configure a service</h2>
    <form id="auth-form" class="grid-form" onSubmit=${create}>
      <label>Type <select ...${field(form, setForm, 'type')}><option value="ldap">LDAP</option><option value="active-directory">Active Directory</option></select></label>
      <label>Title <input required ...${field(form, setForm, 'title')} /></label>
      <label>Host <input required ...${field(form, setForm, 'host')} /></label>
      <label>Port <input type="number" ...${field(form, setForm, 'port')} /></label>
      <label>Transport security <select ...${field(form, setForm, 'transport_security')}><option value="none">None</option><option value="tls">TLS</option><option value="start_tls">StartTLS</option></select></label>
      <label><input type="checkbox" checked=${form.verify_certificates} onChange=${(e) => setForm({ ...form, verify_certificates: e.currentTarget.checked })} /> Verify certificates</label>
      <label>System user DN <input ...${field(form, setForm, 'system_user_dn')} /></label>
      <label>System user password <input type="password" autocomplete="off" ...${field(form, setForm, 'system_user_password')} /></label>
      <label>Search base <input ...${field(form, setForm, 'user_search_base')} /></label>
      <label>Search pattern <input ...${field(form, setForm, 'user_search_pattern')} /></label>
      <label>Name attribute <input ...${field(form, setForm, 'user_name_attribute')} /></label>
      <label>Full name attribute <input ...${field(form, setForm, 'user_full_name_attribute')} /></label>
      <label>Unique id attribute <input ...${field(form, setForm, 'user_unique_id_attribute')} /></label>
      <label>Default roles <input ...${field(form, setForm, 'default_roles')} /></label>
      <div class="inline"><button id="auth-test-connection" type="button" onClick=${() => test('connection')}>Test connection</button></div>
      <label>Test user <input autocomplete="off" ...${field(form, setForm, 'test_user')} /></label>
      <label>Test password <input type="password" autocomplete="off" ...${field(form, setForm, 'test_password')} /></label>
      <div class="inline"><button id="auth-test-login" type="button" onClick=${() => test('login')}>Test login</button><button id="auth-create" class="primary">Create service</button></div>
    </form>
    <${Status} state=${state} />
    ${result && html`<div class=${result.success ? 'ok' : 'error'} id="auth-test-result"><p>${result.message}</p>
      ${(result.errors || []).map((e) => html`<p>${e}</p>`)}${result.result && html`<pre>${JSON.stringify(result.result, null, 2)}</pre>`}</div>`}
  <//>`;
}

const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'off', 'all'];

export function LoggingPage() {
  const subs = useApi('/system/loggers/subsystems');
  const loggers = useApi('/system/loggers');
  const [one, setOne] = useState({ name: '', level: 'debug' });
  const [state, run] = useAction();
  const setSub = (name, level) => run(async () => { await api('PUT', `/system/loggers/subsystems/${q(name)}/level/${level}`); subs.reload(); loggers.reload(); }, `Subsystem ${name} logs at ${level}.`);
  const setLogger = (e) => {
    e.preventDefault();
    run(async () => { await api('PUT', `/system/loggers/${q(one.name)}/level/${one.level}`); loggers.reload(); }, `Logger ${one.name} logs at ${one.level}.`);
  };
  return html`<${Page} title="Logging">
    <p class="muted">loggate's own log levels, changed at run time on this node.</p>
    <${Status} state=${state} />
    <h2>Subsystems</h2>
    <${Loading} r=${subs} />
    ${subs.data && html`<table class="grid" id="subsystems"><thead><tr><th>Subsystem</th><th>Description</th><th>Level</th></tr></thead><tbody>
      ${Object.entries(subs.data.subsystems).map(([name, s]) => html`<tr key=${name} data-subsystem=${name}>
        <td>${s.title || name}</td><td class="muted">${s.description}</td>
        <td><select aria-label=${'Level of ' + name} class="level" value=${s.level} onChange=${(e) => setSub(name, e.currentTarget.value)}>
          ${levels.map((l) => html`<option value=${l}>${l}</option>`)}</select></td></tr>`)}
    </tbody></table>`}
    <h2>A single logger</h2>
    <form id="logger-form" class="inline" onSubmit=${setLogger}>
      <input id="logger-name" aria-label="Logger name" placeholder="Logger, e.g. org.graylog2.inputs" required list="logger-names" ...${field(one, setOne, 'name')} />
      <datalist id="logger-names">${loggers.data && Object.keys(loggers.data.loggers).map((n) => html`<option value=${n} />`)}</datalist>
      <select id="logger-level" aria-label="Level" ...${field(one, setOne, 'level')}>${levels.map((l) => html`<option value=${l}>${l}</option>`)}</select>
      <button class="primary">Set level</button>
    </form>
    ${loggers.data && html`<details><summary>All loggers (${loggers.data.total})</summary><${Table} rows=${Object.entries(loggers.data.loggers)}
      cols=${[['Logger', ([n]) => n], ['Level', ([, l]) => l.level]]} /></details>`}
  <//>`;
}

export function GrokPage() {
  const grok = useApi('/system/grok');
  return html`<${Page} title="Grok patterns"><${Loading} r=${grok} />
    ${grok.data && html`<${Table} rows=${grok.data.patterns} cols=${[['Name', (p) => p.name], ['Pattern', (p) => html`<code class="small">${p.pattern}</code>`]]} />`}<//>`;
}

// CompatPage is `loggate compat report` as a page: which clients still
// speak an older API release, from the access log.
export function CompatPage() {
  const [since, setSince] = useState('168h');
  const r = useApi('/system/compat/report?since=' + q(since));
  return html`<${Page} title="Compatibility">
    <p class="muted">Clients that spoke an API release older than the newest, or needed a version change, as the access log (<code>access_log</code>) records them. Upgrade these before raising <code>compat_min_release</code>.</p>
    <label class="inline">Since <select value=${since} onChange=${(e) => setSince(e.currentTarget.value)}>
      <option value="24h">the last day</option><option value="168h">the last 7 days</option><option value="720h">the last 30 days</option><option value="0">ever</option></select></label>
    ${r.error && html`<${Err} error=${r.error} />`}
    ${r.data && !r.data.enabled && html`<p class="notice">No access log is kept: set <code>access_log</code> to a file, and this page reports on it.</p>`}
    ${r.data && html`<p id="compat-read">${r.data.read} requests read.</p>
      <${Table} empty="No client needed compatibility." rows=${r.data.clients} cols=${[
        ['User', (c) => c.user || '–'], ['Token', (c) => c.token_id || '–'], ['User agent', (c) => c.user_agent],
        ['Release', (c) => c.release + (c.source ? ' (' + c.source + ')' : '')], ['Requests', (c) => c.requests],
        ['Last', (c) => fmtTime(c.last)], ['Changes needed', (c) => Object.keys(c.changes || {}).join(', ')], ['Removed paths', (c) => c.removed]]} />
      <h2>Removed paths still called</h2>
      <${Table} empty="None." rows=${Object.entries(r.data.removed || {})} cols=${[['Route', ([k]) => k], ['Calls', ([, v]) => v]]} />`}
  <//>`;
}
