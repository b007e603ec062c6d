// The search page: Graylog 4.0's /search URL (q, rangetype, relative|from,to
// |keyword, streams), the histogram, 150 messages a page, their detail,
// CSV export, and live tail over GET /api/search/tail.
import { useState, useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { html, api, q, navigate, useApi, fmtTime, timeZone, Err, Page, ApiError } from './lib.js';

export const PAGE_SIZE = 150;
const RESULT_WINDOW = 10000;

const relatives = [
  [300, 'Last 5 minutes'], [900, 'Last 15 minutes'], [1800, 'Last 30 minutes'], [3600, 'Last hour'],
  [7200, 'Last 2 hours'], [28800, 'Last 8 hours'], [86400, 'Last day'], [172800, 'Last 2 days'],
  [432000, 'Last 5 days'], [604800, 'Last 7 days'], [1209600, 'Last 14 days'], [2592000, 'Last 30 days'], [0, 'All time'],
];

// params reads the page's URL as Graylog 4.0 writes it.
function params(streamId) {
  const p = new URLSearchParams(location.search);
  return {
    q: p.get('q') || '',
    rangetype: ['relative', 'absolute', 'keyword'].includes(p.get('rangetype')) ? p.get('rangetype') : 'relative',
    relative: p.get('relative') ?? '300',
    from: p.get('from') || '',
    to: p.get('to') || '',
    keyword: p.get('keyword') || '',
    stream: streamId || (p.get('streams') || '').split(',')[0] || '',
    page: Math.max(1, parseInt(p.get('page') || '1', 10) || 1),
  };
}

function toURL(s, streamId) {
  const p = new URLSearchParams();
  p.set('q', s.q);
  p.set('rangetype', s.rangetype);
  if (s.rangetype === 'relative') p.set('relative', s.relative);
  if (s.rangetype === 'absolute') { p.set('from', s.from); p.set('to', s.to); }
  if (s.rangetype === 'keyword') p.set('keyword', s.keyword);
  if (s.stream && !streamId) p.set('streams', s.stream);
  if (s.page > 1) p.set('page', s.page);
  return (streamId ? `/streams/${q(streamId)}/search` : '/search') + '?' + p.toString();
}

// searchQuery is the universal search's query string for s.
function searchQuery(s, extra = {}) {
  const p = new URLSearchParams({ query: s.q.trim() || '*', ...extra });
  if (s.rangetype === 'relative') p.set('range', s.relative);
  if (s.rangetype === 'absolute') { p.set('from', s.from); p.set('to', s.to); }
  if (s.rangetype === 'keyword') p.set('keyword', s.keyword);
  if (s.stream) p.set('filter', 'streams:' + s.stream);
  return p.toString();
}

function timerange(s) {
  if (s.rangetype === 'absolute') return { type: 'absolute', from: s.from, to: s.to };
  if (s.rangetype === 'keyword') return { type: 'keyword', keyword: s.keyword };
  return { type: 'relative', range: parseInt(s.relative, 10) || 0 };
}

const COLS_KEY = 'loggate.columns';
function savedColumns() {
  try { return JSON.parse(localStorage.getItem(COLS_KEY)) || ['source', 'message']; } catch { return ['source', 'message']; }
}

export function SearchPage({ params: routeParams }) {
  const streamId = routeParams.id || '';
  const s = params(streamId);
  const key = toURL(s, streamId);
  const [form, setForm] = useState(s);
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [columns, setColumns] = useState(savedColumns);
  const [tail, setTail] = useState(false);
  const streams = useApi('/streams');
  const queryInput = useRef();

  useEffect(() => setForm(params(streamId)), [key]);

  // The search runs whenever the URL changes.
  useEffect(() => {
    if (tail) return undefined;
    const ctl = new AbortController();
    setBusy(true);
    setError(null);
    performance.clearMarks('search:answer');
    const offset = (s.page - 1) * PAGE_SIZE;
    api('GET', `/search/universal/${s.rangetype}?` + searchQuery(s, { limit: PAGE_SIZE, offset, sort: 'timestamp:desc' }), undefined, { signal: ctl.signal })
      .then((r) => { performance.mark('search:answer'); setResult(r); setBusy(false); },
        (e) => { if (e.name !== 'AbortError') { setError(e); setResult(null); setBusy(false); } });
    return () => ctl.abort();
  }, [key, tail]);

  // "/" focuses the query bar, as in many log tools.
  useEffect(() => {
    const f = (e) => {
      if (e.key === '/' && !['INPUT', 'TEXTAREA', 'SELECT'].includes(document.activeElement.tagName)) {
        e.preventDefault();
        queryInput.current && queryInput.current.focus();
      }
    };
    addEventListener('keydown', f);
    return () => removeEventListener('keydown', f);
  }, []);

  const submit = (e) => {
    e.preventDefault();
    setTail(false);
    navigate(toURL({ ...form, page: 1 }, streamId));
  };
  const setCols = (c) => { setColumns(c); localStorage.setItem(COLS_KEY, JSON.stringify(c)); };
  const stream = streams.data && streams.data.streams.find((x) => x.id === s.stream);
  const title = stream ? 'Search in ' + stream.title : 'Search';

  return html`<${Page} title=${title}>
    <form id="search-form" class="searchbar" onSubmit=${submit}>
      <div class="row">
        <select id="rangetype" aria-label="Time range type" value=${form.rangetype} onChange=${(e) => setForm({ ...form, rangetype: e.currentTarget.value })}>
          <option value="relative">Relative</option><option value="absolute">Absolute</option><option value="keyword">Keyword</option>
        </select>
        ${form.rangetype === 'relative' && html`<select id="relative" aria-label="Relative range" value=${form.relative} onChange=${(e) => setForm({ ...form, relative: e.currentTarget.value })}>
          ${relatives.map(([v, l]) => html`<option value=${String(v)}>${l}</option>`)}
          ${!relatives.some(([v]) => String(v) === form.relative) && html`<option value=${form.relative}>Last ${form.relative} seconds</option>`}
        </select>`}
        ${form.rangetype === 'absolute' && html`
          <input id="from" aria-label="From" placeholder="from, 2026-11-25T10:00:00.000Z" value=${form.from} onInput=${(e) => setForm({ ...form, from: e.currentTarget.value })} />
          <input id="to" aria-label="To" placeholder="to" value=${form.to} onInput=${(e) => setForm({ ...form, to: e.currentTarget.value })} />`}
        ${form.rangetype === 'keyword' && html`<input id="keyword" aria-label="Keyword range" placeholder="last day, yesterday, …" value=${form.keyword} onInput=${(e) => setForm({ ...form, keyword: e.currentTarget.value })} />`}
        ${!streamId && html`<select id="stream" aria-label="Stream" value=${form.stream} onChange=${(e) => setForm({ ...form, stream: e.currentTarget.value })}>
          <option value="">All streams</option>
          ${streams.data && streams.data.streams.map((x) => html`<option value=${x.id}>${x.title}</option>`)}
        </select>`}
        <button id="tail-toggle" type="button" class=${tail ? 'on' : ''} aria-pressed=${tail} onClick=${() => setTail(!tail)}>${tail ? 'Stop tail' : 'Live tail'}</button>
      </div>
      <div class="row">
        <input id="query" ref=${queryInput} class="query" aria-label="Search query" placeholder="Type your search query here (Lucene syntax) and press Enter" autocomplete="off" spellcheck="false"
          value=${form.q} onInput=${(e) => setForm({ ...form, q: e.currentTarget.value })} />
        <button id="search-button" class="primary" disabled=${busy && !tail}>Search</button>
      </div>
      <${QueryError} error=${error} query=${s.q} />
    </form>
    ${tail
      ? html`<${Tail} s=${s} columns=${columns} />`
      : html`<${Histogram} s=${s} key=${key} />
        ${result && html`<${Results} s=${s} result=${result} columns=${columns} setColumns=${setCols} streamId=${streamId} />`}`}
  <//>`;
}

// QueryError shows a query's parse error where it is in the query.
function QueryError({ error, query }) {
  if (!error) return null;
  const b = error instanceof ApiError ? error.body : null;
  if (b && /QueryParseError$/.test(b.type || '') && b.column > 0) {
    const line = query.split('\n')[Math.max(0, (b.line || 1) - 1)] || '';
    return html`<div id="query-error" class="error" role="alert"><p>${b.message}</p>
      <pre class="caret">${line}\n${' '.repeat(b.column - 1)}^</pre></div>`;
  }
  return html`<div id="query-error"><${Err} error=${error} /></div>`;
}

// Histogram charts the message count over the range (POST /views/search/sync,
// a pivot of count() by time) with uPlot; dragging selects an absolute range.
function Histogram({ s }) {
  const el = useRef();
  const [err, setErr] = useState(null);
  useEffect(() => {
    let plot;
    const ctl = new AbortController();
    const query = { id: 'q', query: { type: 'elasticsearch', query_string: s.q.trim() || '*' }, timerange: timerange(s),
      search_types: [{ id: 'h', type: 'pivot', row_groups: [{ type: 'time', field: 'timestamp', interval: { type: 'auto', scaling: 1.0 } }],
        column_groups: [], series: [{ type: 'count', id: 'count()' }], sort: [], rollup: true }] };
    if (s.stream) query.filter = { type: 'or', filters: [{ type: 'stream', id: s.stream }] };
    // uPlot is loaded when a chart is drawn, so that the login page waits
    // for nothing it does not use.
    Promise.all([api('POST', '/views/search/sync', { queries: [query] }, { signal: ctl.signal }), import('uplot')]).then(([r, { default: uPlot }]) => {
      if (ctl.signal.aborted) return;
      const st = r.results && r.results.q && r.results.q.search_types.h;
      if (!st) throw new Error('no histogram in the answer');
      const xs = [], ys = [];
      for (const row of st.rows || []) {
        if (row.source !== 'leaf' || !row.key || !row.key.length) continue;
        const v = (row.values || []).find((x) => x.source === 'row-leaf' || x.key[x.key.length - 1] === 'count()');
        xs.push(Date.parse(row.key[0]) / 1000);
        ys.push(v ? v.value : 0);
      }
      const order = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b]);
      const data = [order.map((i) => xs[i]), order.map((i) => ys[i])];
      // The axis spans the range searched, not just the buckets found.
      const eff = st.effective_timerange || {};
      let lo = Date.parse(eff.from) / 1000, hi = Date.parse(eff.to) / 1000;
      if (!(lo > 0) || !(hi > lo)) { lo = data[0][0] ?? Date.now() / 1000 - 300; hi = Math.max(data[0].at(-1) ?? lo, lo + 60); }
      const tz = timeZone();
      plot = new uPlot({
        width: el.current.clientWidth || 1000, height: 140,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), tz),
        legend: { show: false }, cursor: { drag: { x: true, y: false } },
        scales: { x: { time: true, range: () => [lo, hi] } },
        series: [{}, { label: 'messages', stroke: '#1f6feb', fill: 'rgba(31,111,235,0.25)', paths: uPlot.paths.bars({ size: [0.9, 40] }) }],
        axes: [{}, { size: 50 }],
        hooks: { setSelect: [(u) => {
          if (u.select.width < 2) return;
          const from = new Date(u.posToVal(u.select.left, 'x') * 1000).toISOString();
          const to = new Date(u.posToVal(u.select.left + u.select.width, 'x') * 1000).toISOString();
          navigate(toURL({ ...s, rangetype: 'absolute', from, to, page: 1 }, ''));
        }] },
      }, data, el.current);
      el.current.setAttribute('data-buckets', String(data[0].length));
    // A query that does not parse is shown at the query bar.
    }).catch((e) => { if (e.name !== 'AbortError' && e.status !== 400) setErr(e); });
    return () => { ctl.abort(); if (plot) plot.destroy(); };
  }, []);
  return html`<div class="histogram"><div id="histogram" ref=${el} aria-label="Message count over time"></div><${Err} error=${err} /></div>`;
}

function cell(m, c) {
  const v = m[c];
  if (v == null) return '';
  if (c === 'timestamp') return fmtTime(v);
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function Results({ s, result, columns, setColumns, streamId }) {
  const total = result.total_results;
  const pages = Math.max(1, Math.ceil(Math.min(total, RESULT_WINDOW) / PAGE_SIZE));
  const [open, setOpen] = useState(null);
  const [exporting, setExporting] = useState(null);
  const go = (page) => navigate(toURL({ ...s, page }, streamId));
  useLayoutEffect(() => {
    performance.mark('search:rendered');
    if (performance.getEntriesByName('search:answer', 'mark').length) {
      performance.measure('search:render', 'search:answer', 'search:rendered');
      requestAnimationFrame(() => performance.measure('search:paint', 'search:answer'));
    }
  }, [result]);
  const exportCSV = async () => {
    setExporting('Exporting…');
    try {
      const blob = await api('GET', `/search/universal/${s.rangetype}/export?` + searchQuery(s, { fields: ['timestamp', ...columns].join(',') }), undefined, { accept: 'text/csv', blob: true });
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = 'loggate-search.csv';
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10000);
      setExporting(null);
    } catch (e) { setExporting(e.message); }
  };
  return html`<div class="results">
    <div class="toolbar">
      <span id="total" data-total=${total}>${total.toLocaleString()} messages</span>
      <span class="spacer"></span>
      <${ColumnChooser} fields=${result.fields} columns=${columns} setColumns=${setColumns} />
      <button id="export" type="button" onClick=${exportCSV}>Export CSV</button>${exporting && html`<span class="muted">${exporting}</span>`}
      <${Pager} page=${s.page} pages=${pages} go=${go} />
    </div>
    <${MessageTable} messages=${result.messages} columns=${columns} open=${open} setOpen=${setOpen} />
    ${result.messages.length > 20 && html`<div class="toolbar"><span class="spacer"></span><${Pager} page=${s.page} pages=${pages} go=${go} /></div>`}
  </div>`;
}

function Pager({ page, pages, go }) {
  return html`<span class="pager">
    <button type="button" class="prev" disabled=${page <= 1} onClick=${() => go(page - 1)} aria-label="Previous page">‹ Prev</button>
    <span class="pageno">Page ${page} of ${pages}</span>
    <button type="button" class="next" disabled=${page >= pages} onClick=${() => go(page + 1)} aria-label="Next page">Next ›</button>
  </span>`;
}

function ColumnChooser({ fields, columns, setColumns }) {
  const all = [...new Set([...columns, ...(fields || [])])].filter((f) => f !== 'timestamp' && f !== '_id');
  return html`<details class="columns"><summary>Columns</summary><div class="menu">
    ${all.map((f) => html`<label><input type="checkbox" data-field=${f} checked=${columns.includes(f)}
      onChange=${(e) => setColumns(e.currentTarget.checked ? [...columns, f] : columns.filter((c) => c !== f))} /> ${f}</label>`)}
  </div></details>`;
}

export function MessageTable({ messages, columns, open, setOpen }) {
  const cols = ['timestamp', ...columns];
  const toggle = (id) => setOpen(open === id ? null : id);
  return html`<table class="grid messages" id="messages">
    <thead><tr>${cols.map((c) => html`<th>${c}</th>`)}</tr></thead>
    <tbody>${messages.map(({ message: m, index }) => {
      const id = m._id;
      return html`<tr key=${id} class="msg" tabindex="0" data-id=${id} aria-expanded=${open === id}
          onClick=${() => toggle(id)} onKeyDown=${(e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); toggle(id); } }}>
          ${cols.map((c) => html`<td class=${'c-' + c}>${cell(m, c)}</td>`)}</tr>
        ${open === id && html`<tr key=${id + '-detail'} class="detail"><td colspan=${cols.length}><${Detail} m=${m} index=${index} /></td></tr>`}`;
    })}</tbody></table>`;
}

function Detail({ m, index }) {
  const keys = Object.keys(m).sort();
  return html`<div class="message-detail" id="message-detail">
    <p class="muted">Message <code>${m._id}</code> in index <code>${index}</code>, received ${fmtTime(m.timestamp)}</p>
    <dl>${keys.map((k) => html`<dt>${k}</dt><dd>${k === 'timestamp' ? fmtTime(m[k]) + ' (' + m[k] + ')' : cell(m, k)}</dd>`)}</dl>
  </div>`;
}

// Tail follows new matching messages: the newest first, asking for what
// came after the cursor every second while the page is open and the tail
// on, keeping the latest 500.
const TAIL_KEEP = 500;
function Tail({ s, columns }) {
  const [msgs, setMsgs] = useState([]);
  const [err, setErr] = useState(null);
  const [open, setOpen] = useState(null);
  useEffect(() => {
    let cursor = '', timer = 0, stopped = false;
    const ctl = new AbortController();
    const poll = async () => {
      const p = new URLSearchParams({ query: s.q.trim() || '*', limit: '200' });
      if (s.stream) p.set('filter', 'streams:' + s.stream);
      if (cursor) p.set('after', cursor);
      try {
        const r = await api('GET', '/search/tail?' + p, undefined, { signal: ctl.signal });
        cursor = r.cursor;
        setErr(null);
        if (r.messages.length) setMsgs((old) => [...r.messages.reverse(), ...old].slice(0, TAIL_KEEP));
      } catch (e) {
        if (e.name === 'AbortError') return;
        setErr(e);
      }
      if (!stopped) timer = setTimeout(poll, 1000);
    };
    poll();
    return () => { stopped = true; clearTimeout(timer); ctl.abort(); };
  }, []);
  return html`<div class="results tail" id="tail">
    <div class="toolbar"><span class="live" aria-live="polite">Following new messages (newest first; ${msgs.length} shown)</span></div>
    <${QueryError} error=${err} query=${s.q} />
    <${MessageTable} messages=${msgs} columns=${columns} open=${open} setOpen=${setOpen} />
  </div>`;
}
