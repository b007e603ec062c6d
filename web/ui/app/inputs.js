// Inputs: launch GELF HTTP, TCP and UDP inputs, their state (RUNNING, or
// FAILED with the reason), start and stop, messages and bytes received.
import { useState, useEffect } from 'preact/hooks';
import { html, api, q, useApi, useAction, Status, Loading, Page, field, fmtBytes } from './lib.js';

const types = [
  ['org.graylog2.inputs.gelf.http.GELFHttpInput', 'GELF HTTP'],
  ['org.graylog2.inputs.gelf.tcp.GELFTCPInput', 'GELF TCP'],
  ['org.graylog2.inputs.gelf.udp.GELFUDPInput', 'GELF UDP'],
];
const typeName = (t) => (types.find(([c]) => c === t) || [t, t])[1];

// useCounters reads each input's incomingMessages and read_bytes_total
// every few seconds.
function useCounters(inputs) {
  const [values, set] = useState({});
  const ids = (inputs || []).map((i) => i.type + '.' + i.id);
  useEffect(() => {
    if (!ids.length) return undefined;
    let live = true, timer = 0;
    const load = async () => {
      const names = ids.flatMap((p) => [p + '.incomingMessages', p + '.read_bytes_total']);
      try {
        const r = await api('POST', '/system/metrics/multiple', { metrics: names });
        const out = {};
        for (const m of r.metrics || []) {
          const v = m.metric && (m.metric.rate ? m.metric.rate.total : m.metric.value ?? m.metric.count);
          out[m.full_name] = v;
        }
        if (live) set(out);
      } catch { /* counters are a nicety; the list still shows */ }
      if (live) timer = setTimeout(load, 3000);
    };
    load();
    return () => { live = false; clearTimeout(timer); };
  }, [ids.join(',')]);
  return values;
}

export function InputsPage() {
  const inputs = useApi('/system/inputs');
  const states = useApi('/system/inputstates');
  const [form, setForm] = useState({ type: types[0][0], title: '', bind_address: '0.0.0.0', port: '12201' });
  const [state, run] = useAction();
  const counters = useCounters(inputs.data && inputs.data.inputs);
  const reload = () => { inputs.reload(); states.reload(); };
  // States change by themselves (an input starting, failing): follow them.
  useEffect(() => {
    const timer = setInterval(states.reload, 2000);
    return () => clearInterval(timer);
  }, []);
  const launch = (e) => {
    e.preventDefault();
    run(async () => {
      await api('POST', '/system/inputs', { title: form.title || typeName(form.type), type: form.type, global: true,
        configuration: { bind_address: form.bind_address, port: parseInt(form.port, 10) } });
      reload();
    }, 'Input launched.');
  };
  const stateOf = (id) => states.data && states.data.states.find((s) => s.id === id);
  const act = (f) => run(async () => { await f(); reload(); });
  return html`<${Page} title="Inputs">
    <form id="input-launch" class="inline" onSubmit=${launch}>
      <select id="input-type" aria-label="Input type" ...${field(form, setForm, 'type')}>${types.map(([c, l]) => html`<option value=${c}>${l}</option>`)}</select>
      <input id="input-title" aria-label="Title" placeholder="Title" ...${field(form, setForm, 'title')} />
      <input id="input-bind" aria-label="Bind address" ...${field(form, setForm, 'bind_address')} />
      <input id="input-port" aria-label="Port" type="number" min="1" max="65535" ...${field(form, setForm, 'port')} />
      <button class="primary">Launch new input</button>
    </form>
    <${Status} state=${state} />
    <${Loading} r=${inputs} />
    ${inputs.data && html`<table class="grid" id="inputs"><thead><tr><th>Title</th><th>Type</th><th>Address</th><th>State</th><th>Messages</th><th>Bytes</th><th></th></tr></thead>
      <tbody>${inputs.data.inputs.map((i) => {
        const st = stateOf(i.id);
        const running = st && st.state === 'RUNNING';
        const p = i.type + '.' + i.id;
        return html`<tr key=${i.id} data-input=${i.title}>
          <td>${i.title}</td><td>${typeName(i.type)}</td><td>${i.attributes.bind_address}:${i.attributes.port}</td>
          <td><span class=${'badge ' + (running ? 'on' : 'off')}>${st ? st.state : 'NOT RUNNING'}</span>
            ${st && st.detailed_message && html`<div class="error small">${st.detailed_message}</div>`}</td>
          <td>${counters[p + '.incomingMessages'] ?? ''}</td><td>${fmtBytes(counters[p + '.read_bytes_total'])}</td>
          <td class="actions">${running
            ? html`<button onClick=${() => act(() => api('DELETE', `/system/inputstates/${q(i.id)}`))}>Stop input</button>`
            : html`<button onClick=${() => act(() => api('PUT', `/system/inputstates/${q(i.id)}`))}>Start input</button>`}
            <button class="danger" onClick=${() => act(() => api('DELETE', `/system/inputs/${q(i.id)}`))}>Delete</button></td>
        </tr>`;
      })}</tbody></table>`}
  <//>`;
}
