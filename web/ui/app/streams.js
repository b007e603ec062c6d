// Streams: list, create, edit, rules of the 8 types, test a message, pause
// and resume, outputs.
import { useState } from 'preact/hooks';
import { html, api, q, useApi, useAction, Status, Loading, Page, field } from './lib.js';

export const ruleTypes = [
  [1, 'match exactly'], [2, 'match regular expression'], [3, 'greater than'], [4, 'smaller than'],
  [5, 'field presence'], [6, 'contain'], [7, 'always match'], [8, 'match input'],
];
const builtinStreams = ['000000000000000000000001', '000000000000000000000002', '000000000000000000000003'];
const ruleName = (t) => (ruleTypes.find(([n]) => n === t) || [0, 'type ' + t])[1];

export function StreamsPage() {
  const streams = useApi('/streams');
  const sets = useApi('/system/indices/index_sets');
  const [form, setForm] = useState({ title: '', description: '', remove: false });
  const [state, run] = useAction();
  const [edit, setEdit] = useState(null);
  const create = (e) => {
    e.preventDefault();
    const def = sets.data && (sets.data.index_sets.find((x) => x.default) || sets.data.index_sets[0]);
    run(async () => {
      const r = await api('POST', '/streams', { title: form.title, description: form.description, matching_type: 'AND',
        remove_matches_from_default_stream: form.remove, index_set_id: form.index_set_id || (def && def.id), rules: [] });
      setForm({ title: '', description: '', remove: false });
      streams.reload();
      setEdit(r.stream_id);
    }, 'Stream created. Add rules, then start it.');
  };
  return html`<${Page} title="Streams">
    <form id="stream-create" class="inline" onSubmit=${create}>
      <input id="stream-title" aria-label="Title" placeholder="Title" required ...${field(form, setForm, 'title')} />
      <input id="stream-description" aria-label="Description" placeholder="Description" ...${field(form, setForm, 'description')} />
      <select aria-label="Index set" ...${field(form, setForm, 'index_set_id')}>
        <option value="">Default index set</option>
        ${sets.data && sets.data.index_sets.filter((x) => x.writable !== false).map((x) => html`<option value=${x.id}>${x.title}</option>`)}
      </select>
      <label><input type="checkbox" checked=${form.remove} onChange=${(e) => setForm({ ...form, remove: e.currentTarget.checked })} /> Remove matches from the default stream</label>
      <button id="stream-create-button" class="primary" disabled=${state.busy}>Create stream</button>
    </form>
    <${Status} state=${state} />
    <${Loading} r=${streams} />
    ${streams.data && html`<ul class="cards" id="streams">${streams.data.streams.map((s) => html`<li key=${s.id} data-stream=${s.title}>
      <${StreamCard} s=${s} reload=${streams.reload} open=${edit === s.id} setOpen=${(o) => setEdit(o ? s.id : null)} />
    </li>`)}</ul>`}
  <//>`;
}

function StreamCard({ s, reload, open, setOpen }) {
  const [state, run] = useAction();
  // All messages, All events and All system events cannot be changed.
  const builtin = builtinStreams.includes(s.id);
  const toggle = () => run(async () => { await api('POST', `/streams/${q(s.id)}/${s.disabled ? 'resume' : 'pause'}`); reload(); });
  const del = () => run(async () => { await api('DELETE', `/streams/${q(s.id)}`); reload(); });
  return html`<div class="card">
    <div class="card-head">
      <h2><a href=${`/streams/${q(s.id)}/search`}>${s.title}</a></h2>
      <span class=${'badge ' + (s.disabled ? 'off' : 'on')}>${s.disabled ? 'Paused' : 'Running'}</span>
      <span class="muted">${s.description}</span>
      <span class="spacer"></span>
      ${!builtin && html`
        <button class="stream-toggle" onClick=${toggle}>${s.disabled ? 'Start stream' : 'Pause stream'}</button>
        <button class="stream-edit" aria-expanded=${open} onClick=${() => setOpen(!open)}>${open ? 'Close' : 'Edit'}</button>
        <button class="danger" onClick=${del}>Delete</button>`}
    </div>
    <p class="muted">${s.rules.length} rule${s.rules.length === 1 ? '' : 's'}, messages must match ${s.matching_type === 'OR' ? 'at least one' : 'all'}${s.outputs && s.outputs.length ? `; ${s.outputs.length} output(s)` : ''}${builtin ? ' (built in)' : ''}</p>
    <${Status} state=${state} />
    ${open && html`<${StreamEditor} s=${s} reload=${reload} />`}
  </div>`;
}

function StreamEditor({ s, reload }) {
  const [meta, setMeta] = useState({ title: s.title, description: s.description || '', matching_type: s.matching_type || 'AND' });
  const [rule, setRule] = useState({ field: '', type: '1', value: '', inverted: false, description: '' });
  const [test, setTest] = useState('{"source":"web-1","message":"disk full","level":3}');
  const [match, setMatch] = useState(null);
  const [state, run] = useAction();
  const outputs = useApi('/system/outputs');
  const save = (e) => {
    e.preventDefault();
    run(async () => {
      await api('PUT', `/streams/${q(s.id)}`, { ...meta, remove_matches_from_default_stream: s.remove_matches_from_default_stream, index_set_id: s.index_set_id });
      reload();
    }, 'Saved.');
  };
  const addRule = (e) => {
    e.preventDefault();
    run(async () => {
      await api('POST', `/streams/${q(s.id)}/rules`, { ...rule, type: parseInt(rule.type, 10) });
      setRule({ ...rule, field: '', value: '', description: '' });
      reload();
    }, 'Rule added.');
  };
  const delRule = (id) => run(async () => { await api('DELETE', `/streams/${q(s.id)}/rules/${q(id)}`); reload(); });
  const testMatch = (e) => {
    e.preventDefault();
    run(async () => {
      let message;
      try { message = JSON.parse(test); } catch (err) { throw new Error('The message is not JSON: ' + err.message); }
      setMatch(await api('POST', `/streams/${q(s.id)}/testMatch`, { message }));
    });
  };
  const attached = new Set((s.outputs || []).map((o) => o.id));
  const attach = (id) => run(async () => { await api('POST', `/streams/${q(s.id)}/outputs`, { outputs: [id] }); reload(); });
  const detach = (id) => run(async () => { await api('DELETE', `/streams/${q(s.id)}/outputs/${q(id)}`); reload(); });
  const noValue = rule.type === '5' || rule.type === '7';
  return html`<div class="editor">
    <form class="inline" onSubmit=${save}>
      <input aria-label="Title" ...${field(meta, setMeta, 'title')} />
      <input aria-label="Description" ...${field(meta, setMeta, 'description')} />
      <select aria-label="Matching" ...${field(meta, setMeta, 'matching_type')}>
        <option value="AND">A message must match all rules</option><option value="OR">A message must match at least one rule</option>
      </select>
      <button>Save</button>
    </form>
    <h3>Rules</h3>
    <ul class="rules">${s.rules.map((r) => html`<li key=${r.id} data-rule=${r.id}>
      <code>${r.field || '*'}</code> ${r.inverted ? 'must not ' : 'must '}${ruleName(r.type)} ${r.value && html`<code>${r.value}</code>`}
      ${match && match.rules && r.id in match.rules && html` <span class=${'badge ' + (match.rules[r.id] ? 'on' : 'off')}>${match.rules[r.id] ? 'matches' : 'no match'}</span>`}
      <button class="link danger" onClick=${() => delRule(r.id)}>Delete rule</button></li>`)}</ul>
    <form class="inline rule-form" onSubmit=${addRule}>
      <input class="rule-field" aria-label="Field" placeholder="Field" required=${rule.type !== '7'} ...${field(rule, setRule, 'field')} />
      <select class="rule-type" aria-label="Rule type" ...${field(rule, setRule, 'type')}>
        ${ruleTypes.map(([n, l]) => html`<option value=${String(n)}>${l}</option>`)}
      </select>
      <input class="rule-value" aria-label="Value" placeholder=${noValue ? '(no value)' : 'Value'} disabled=${noValue} ...${field(rule, setRule, 'value')} />
      <label><input type="checkbox" checked=${rule.inverted} onChange=${(e) => setRule({ ...rule, inverted: e.currentTarget.checked })} /> Inverted</label>
      <button class="rule-add">Add rule</button>
    </form>
    <h3>Test a message</h3>
    <form class="inline" onSubmit=${testMatch}>
      <textarea class="test-message" aria-label="Message as JSON" rows="2" value=${test} onInput=${(e) => setTest(e.currentTarget.value)}></textarea>
      <button>Test</button>
      ${match && html`<span class=${'badge test-result ' + (match.matches ? 'on' : 'off')}>${match.matches ? 'The stream matches' : 'The stream does not match'}</span>`}
    </form>
    <h3>Outputs</h3>
    ${outputs.data && html`<ul class="rules">${outputs.data.outputs.map((o) => html`<li key=${o.id}>${o.title} <span class="muted">${o.type}</span>
      ${attached.has(o.id) ? html`<button class="link" onClick=${() => detach(o.id)}>Detach</button>` : html`<button class="link" onClick=${() => attach(o.id)}>Attach</button>`}</li>`)}
      ${outputs.data.outputs.length === 0 && html`<li class="muted">No outputs yet: create one under System › Outputs.</li>`}</ul>`}
    <${Status} state=${state} />
  </div>`;
}
