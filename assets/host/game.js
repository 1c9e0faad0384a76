// A hosted game's page (docs/host.md): the public display for anyone, and,
// with a link's token after `#`, a commander's sign-up and orders or the
// referee's controls. The token never leaves the browser but as an
// `Authorization: Bearer` header. No framework, no request but to the
// page's own server; the page asks for the display every few seconds.

const $ = (id) => document.getElementById(id);
const POLL_MS = 3000;
const MAX_UPLOAD = 256 * 1024;

const GAME = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] || '');
const TOKEN = (() => {
  const raw = location.hash.replace(/^#/, '').trim();
  try { return decodeURIComponent(raw) || null; } catch (e) { return raw || null; }
})();
const API = `/api/games/${encodeURIComponent(GAME)}`;

let display = null; // the public display, GET /api/games/ID
let displayText = '';
let me = null; // GET /api/games/ID/me, with a token
let meKey = null; // what `me` was fetched for (see meKeyOf)
let tokenProblem = null; // why the link's token does not work
let commanderPhase = null; // what the commander panel was built for
let refereeBuilt = false;
let refPlotsKey = null;
const turnOpen = new Map(); // Exchange -> open, as the reader left it
const reissued = new Map(); // side index -> the new link
let formModel = null; // the orders form's state
let lineMap = []; // line of the form's TOML -> the volley editor it came from

// ---------- small DOM helpers ----------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'testid') el.dataset.testid = v;
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : String(c));
  return el;
}

function plural(n, one, many) { return `${n} ${n === 1 ? one : many}`; }

function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

function duration(ms) {
  let sec = Math.max(0, Math.round(ms / 1000));
  const parts = [];
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['min', 60]]) {
    if (sec >= size) { parts.push(`${Math.floor(sec / size)} ${unit}`); sec %= size; }
  }
  if (sec || !parts.length) parts.push(`${sec} s`);
  return parts.slice(0, 2).join(' ');
}

// ---------- talking to the server ----------

class ApiError extends Error {
  constructor(message, status, detail) {
    super(message);
    this.status = status;
    this.diagnostics = (detail && detail.diagnostics) || [];
    this.rendered = (detail && detail.rendered) || '';
  }
}

// One request to the game's API; the token goes as a header when `auth`.
async function api(method, path, { body, text, auth = true, raw = false } = {}) {
  const headers = {};
  if (auth && TOKEN) headers.Authorization = `Bearer ${TOKEN}`;
  let payload;
  if (text !== undefined) {
    headers['Content-Type'] = 'text/plain';
    payload = text;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body: payload, cache: 'no-store' });
  } catch (e) {
    throw new ApiError('The fam server did not answer (is `fam serve` still running?)', 0, null);
  }
  if (res.ok && raw) return res;
  const answer = await res.text();
  if (res.ok) return answer ? JSON.parse(answer) : null;
  let detail = null;
  try { detail = JSON.parse(answer).error; } catch (e) { /* not JSON */ }
  const message = (detail && detail.message) || answer || res.statusText;
  throw new ApiError(message, res.status, detail);
}

function showNotice(text, kind = 'error') {
  const box = $('notice');
  if (!text) { box.hidden = true; return; }
  box.className = kind;
  box.replaceChildren(h('p', {}, text));
  box.hidden = false;
}

// ---------- diagnostics in a player's words ----------

const KEY_WORDS = {
  speed: 'Speed', evasion: 'Evasion', primary: 'the maneuver', fire: 'the fire orders', pd: 'point defence',
  weapons: 'the weapons', fc: 'the Fire Control', target: 'the target', unit: 'the ship',
  damage_control: 'damage control', secondary: 'the secondary maneuvers',
};

function playerWords(d) {
  let text = String(d.message || '').replace(/`([^`]*)`/g, (_, k) => KEY_WORDS[k] || `“${k}”`)
    .replace(/\bUnits?\b/g, (u) => (u === 'Unit' ? 'ship' : 'ships'));
  if (d.expected) text += ` (fam expected ${d.expected})`;
  if (d.help) text += `. ${[].concat(d.help).map((x) => String(x).charAt(0).toUpperCase() + String(x).slice(1)).join('. ')}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function where(d) {
  const at = [d.line, d.column].filter((x) => x !== null && x !== undefined && x !== '').join(':');
  return at ? `line ${at}` : '';
}

function diagnosticItem(d) {
  const at = where(d);
  return h('li', { class: d.severity === 'warning' ? 'warning' : null },
    d.severity === 'warning' ? 'Warning: ' : null, playerWords(d), at ? [' ', h('code', {}, at)] : null);
}

function refusalBlock(err, sentText) {
  const diags = err.diagnostics || [];
  return h('div', { class: 'field-error', testid: 'refusal', tabindex: '-1' },
    h('p', {}, h('b', {}, err.status === 422 ? 'fam refused these orders: ' : 'Not sent: '), err.message),
    diags.length ? h('ul', { class: 'diagnostics', testid: 'refusal-list' }, diags.map(diagnosticItem)) : null,
    err.rendered ? h('details', {}, h('summary', {}, 'As fam check prints it'), h('pre', { class: 'rendered', testid: 'rendered' }, err.rendered)) : null,
    sentText ? h('details', {}, h('summary', {}, 'The orders that were sent, with line numbers'), h('pre', {}, numbered(sentText))) : null);
}

function numbered(text) {
  const lines = text.split('\n');
  const w = String(lines.length).length;
  return lines.map((l, i) => `${String(i + 1).padStart(w)} | ${l}`).join('\n');
}

// ---------- TOML, as far as the orders form needs it ----------

// Reads TOML into its tables: [{kind: 'root'|'table'|'array', path, entries:
// [{key, value, raw}], raw}], each entry's source text kept (`raw`). Enough
// TOML for orders files as fam writes them and as people write them:
// strings, integers, floats, booleans, arrays, inline tables, dotted and
// quoted keys; no dates, no multi-line strings (an error says so).
function parseToml(text) {
  let i = 0;
  const n = text.length;
  const line = () => text.slice(0, i).split('\n').length;
  const fail = (what) => { throw new Error(`the form cannot read line ${line()}: ${what}`); };
  const ws = () => { while (i < n && (text[i] === ' ' || text[i] === '\t')) i++; };
  const comment = () => { if (text[i] === '#') while (i < n && text[i] !== '\n') i++; };
  const blank = () => {
    for (;;) {
      ws(); comment();
      if (text[i] === '\n' || text[i] === '\r') i++;
      else return;
    }
  };
  function basic() {
    i++;
    let out = '';
    while (i < n) {
      const c = text[i++];
      if (c === '"') return out;
      if (c === '\n') break;
      if (c !== '\\') { out += c; continue; }
      const e = text[i++];
      const simple = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' }[e];
      if (simple !== undefined) out += simple;
      else if (e === 'u' || e === 'U') {
        const len = e === 'u' ? 4 : 8;
        const code = parseInt(text.slice(i, i + len), 16);
        if (Number.isNaN(code)) fail('a bad \\u escape');
        out += String.fromCodePoint(code);
        i += len;
      } else fail('an unknown escape');
    }
    return fail('a string without its closing quote');
  }
  function literal() {
    const end = text.indexOf("'", i + 1);
    if (end < 0 || text.slice(i, end).includes('\n')) fail('a string without its closing quote');
    const out = text.slice(i + 1, end);
    i = end + 1;
    return out;
  }
  function simpleKey() {
    if (text[i] === '"') return basic();
    if (text[i] === "'") return literal();
    const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 256));
    if (!m) fail('a key was expected');
    i += m[0].length;
    return m[0];
  }
  function key() {
    const parts = [];
    for (;;) {
      ws();
      parts.push(simpleKey());
      ws();
      if (text[i] !== '.') return parts;
      i++;
    }
  }
  function put(table, path, value) {
    let t = table;
    for (const p of path.slice(0, -1)) {
      if (!(p in t)) t[p] = {};
      t = t[p];
    }
    t[path[path.length - 1]] = value;
  }
  function value() {
    const c = text[i];
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) fail('multi-line strings are not read by the form');
    if (c === '"') return basic();
    if (c === "'") return literal();
    if (c === '[') {
      i++;
      const arr = [];
      for (;;) {
        blank();
        if (text[i] === ']') { i++; return arr; }
        arr.push(value());
        blank();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return arr; }
        fail('`,` or `]` was expected in an array');
      }
    }
    if (c === '{') {
      i++;
      const table = {};
      ws();
      if (text[i] === '}') { i++; return table; }
      for (;;) {
        const k = key();
        if (text[i] !== '=') fail('`=` was expected');
        i++;
        ws();
        put(table, k, value());
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return table; }
        fail('`,` or `}` was expected in an inline table');
      }
    }
    const m = /^(?:true|false|[+-]?(?:inf|nan)|[+-]?[0-9][0-9_]*(?:\.[0-9_]+)?(?:[eE][+-]?[0-9_]+)?)(?![0-9A-Za-z:_-])/.exec(text.slice(i, i + 80));
    if (!m) fail('a value was expected (dates are not read by the form)');
    i += m[0].length;
    if (m[0] === 'true') return true;
    if (m[0] === 'false') return false;
    return Number(m[0].replace(/_/g, ''));
  }
  const tables = [{ kind: 'root', path: [], entries: [], start: 0 }];
  let cur = tables[0];
  for (;;) {
    blank();
    if (i >= n) break;
    const start = i;
    if (text.startsWith('[[', i)) {
      i += 2;
      const path = key();
      if (!text.startsWith(']]', i)) fail('`]]` was expected');
      i += 2;
      cur = { kind: 'array', path, entries: [], start };
      tables.push(cur);
    } else if (text[i] === '[') {
      i++;
      const path = key();
      if (text[i] !== ']') fail('`]` was expected');
      i++;
      cur = { kind: 'table', path, entries: [], start };
      tables.push(cur);
    } else {
      const k = key();
      if (text[i] !== '=') fail('`=` was expected');
      i++;
      ws();
      const v = value();
      ws();
      comment();
      cur.entries.push({ key: k, value: v, raw: text.slice(start, i).replace(/\s+$/, '') });
    }
    ws();
    comment();
    if (i < n && text[i] !== '\n' && text[i] !== '\r') fail('a new line was expected');
  }
  tables.forEach((t, k) => { t.raw = text.slice(t.start, k + 1 < tables.length ? tables[k + 1].start : n).replace(/\s+$/, ''); });
  return tables;
}

// A TOML basic string, quoted as fam quotes.
function quote(str) {
  let out = '"';
  for (const ch of String(str)) {
    const c = ch.codePointAt(0);
    const esc = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' }[ch];
    if (esc) out += esc;
    else if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

function tomlKey(k) { return /^[A-Za-z0-9_-]+$/.test(k) ? k : quote(k); }

function tomlValue(v) {
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(', ')}]`;
  const parts = Object.entries(v).map(([k, x]) => `${tomlKey(k)} = ${tomlValue(x)}`);
  return parts.length ? `{ ${parts.join(', ')} }` : '{}';
}

// ---------- the orders form: its state from a plot, TOML from its state ----------

const WORDS = ['close', 'maintain', 'withdraw'];
const squash = (name) => String(name).toLowerCase().replace(/\s+/g, ' ').trim();
const isTable = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNumbers = (v) => Array.isArray(v) && v.every(Number.isInteger);

function unitOf(f, name) {
  if (name === undefined) return f.units.length === 1 ? f.units[0] : null;
  return typeof name === 'string' ? f.units.find((u) => squash(u.name) === squash(name)) || null : null;
}

const rowKey = (unit, fc) => `${unit}\u0000${fc}`;

function emptyVolley(f) {
  return { speed: f.thrust, evasion: 0, word: '', target: '', fire: {}, pd: {}, keptFire: [], keptPd: [], extra: '' };
}

// One Volley's state from its table's entries.
function volleyFrom(f, entries) {
  const v = { ...emptyVolley(f), speed: '', evasion: '' };
  const extra = [];
  for (const e of entries) {
    const k = e.key.length === 1 ? e.key[0] : null;
    const val = e.value;
    if ((k === 'speed' || k === 'evasion') && Number.isInteger(val)) v[k] = val;
    else if (k === 'primary' && isTable(val) && Object.keys(val).length === 1
      && WORDS.includes(Object.keys(val)[0]) && typeof Object.values(val)[0] === 'string') {
      [[v.word, v.target]] = Object.entries(val);
    } else if (k === 'fire' && Array.isArray(val) && val.every(isTable)) {
      for (const o of val) {
        const unit = unitOf(f, o.unit);
        const fc = o.fc === undefined && unit && unit.fire_controls.length === 1 ? unit.fire_controls[0] : o.fc;
        const row = unit && unit.fire_controls.includes(fc) ? rowKey(unit.name, fc) : null;
        const aim = typeof o.target === 'string' ? (o.target === 'inactive' ? '' : o.target)
          : typeof o.group === 'string' ? `group:${o.group}` : null;
        if (!row || v.fire[row] || aim === null || (o.weapons !== undefined && !isNumbers(o.weapons))) {
          v.keptFire.push(o);
          continue;
        }
        const more = { ...o };
        for (const x of ['unit', 'fc', 'target', 'group', 'weapons']) delete more[x];
        v.fire[row] = { target: aim, weapons: o.weapons === undefined ? null : [...o.weapons], more };
      }
    } else if (k === 'pd' && Array.isArray(val) && val.every(isTable)) {
      for (const o of val) {
        const unit = unitOf(f, o.unit);
        const plain = Object.keys(o).every((x) => ['unit', 'weapons', 'defend'].includes(x));
        const defend = o.defend === undefined ? '' : o.defend;
        if (!unit || !plain || !isNumbers(o.weapons) || typeof defend !== 'string'
          || (v.pd[unit.name] && v.pd[unit.name].defend !== defend)) {
          v.keptPd.push(o);
          continue;
        }
        const had = v.pd[unit.name] || { weapons: [], defend };
        had.weapons.push(...o.weapons.filter((w) => !had.weapons.includes(w)));
        v.pd[unit.name] = had;
      }
    } else extra.push(e.raw);
  }
  v.extra = extra.join('\n');
  return v;
}

// The plot tables of `template_plot` ({FORMATION: {volley: [{key: value}]}}),
// as parseToml gives them.
function tablesOf(plot) {
  const tables = [{ kind: 'root', path: [], entries: [], raw: '' }];
  for (const [name, p] of Object.entries(plot || {})) {
    for (const volley of (p && p.volley) || []) {
      tables.push({ kind: 'array', path: ['plot', name, 'volley'], raw: '',
        entries: Object.entries(volley).map(([k, v]) => ({ key: [k], value: v, raw: `${tomlKey(k)} = ${tomlValue(v)}` })) });
    }
  }
  return tables;
}

// The form's state from the plot `text` (the submitted plot, or the
// template) for the Formations of `form` (me.form).
function modelFrom(form, text, fallback) {
  let tables;
  try {
    tables = parseToml(text);
  } catch (e) {
    if (!fallback) throw e;
    tables = tablesOf(fallback);
  }
  const byName = new Map(form.formations.map((f) => [f.name, f]));
  const plots = new Map();
  const root = [];
  const other = [];
  for (const t of tables) {
    if (t.kind === 'root') {
      for (const e of t.entries) if (!(e.key.length === 1 && ['commander', 'scenario'].includes(e.key[0]))) root.push(e.raw);
    } else if (t.kind === 'array' && t.path.length === 3 && t.path[0] === 'plot' && t.path[2] === 'volley' && byName.has(t.path[1])) {
      if (!plots.has(t.path[1])) plots.set(t.path[1], []);
      plots.get(t.path[1]).push(t);
    } else if (t.raw) other.push(t.raw);
  }
  return {
    root,
    other,
    formations: form.formations.map((f) => {
      const ts = plots.get(f.name) || [];
      const volleys = ts.length
        ? [0, 1, 2].map((k) => volleyFrom(f, ts[Math.min(k, ts.length - 1)].entries))
        : [0, 1, 2].map(() => emptyVolley(f));
      return { f, plotted: ts.length > 0, same: ts.length !== 3, volleys };
    }),
  };
}

function weaponsOf(unit, listed, pdOnly) {
  const numbers = unit.weapons.filter((w) => !pdOnly || w.pd).map((w) => w.number);
  for (const w of listed || []) if (!numbers.includes(w)) numbers.push(w);
  return numbers.sort((a, b) => a - b);
}

function weaponName(unit, number) {
  const w = unit.weapons.find((x) => x.number === number);
  return w ? `${number} ${w.name}` : String(number);
}

// One Volley's keys as TOML lines.
function volleyToml(f, v) {
  const out = [];
  const int = (x) => (x === '' || x === null || Number.isNaN(Number(x)) ? null : Math.trunc(Number(x)));
  if (int(v.speed) !== null) out.push(`speed = ${int(v.speed)}`);
  if (int(v.evasion) !== null) out.push(`evasion = ${int(v.evasion)}`);
  if (v.word && v.target) out.push(`primary = { ${v.word} = ${quote(v.target)} }`);
  const fire = [];
  for (const unit of f.units) {
    for (const fc of unit.fire_controls) {
      const row = v.fire[rowKey(unit.name, fc)];
      if (!row || !row.target) continue;
      let entry = `unit = ${quote(unit.name)}, fc = ${fc}, `;
      entry += row.target.startsWith('group:') ? `group = ${quote(row.target.slice(6))}` : `target = ${quote(row.target)}`;
      if (row.weapons) entry += `, weapons = [${[...row.weapons].sort((a, b) => a - b).join(', ')}]`;
      for (const [k, x] of Object.entries(row.more || {})) entry += `, ${tomlKey(k)} = ${tomlValue(x)}`;
      fire.push(`  { ${entry} },`);
    }
  }
  for (const o of v.keptFire) fire.push(`  ${tomlValue(o)},`);
  if (fire.length) out.push('fire = [', ...fire, ']');
  const pd = [];
  for (const unit of f.units) {
    const p = v.pd[unit.name];
    if (!p || !p.weapons.length) continue;
    const defend = p.defend ? `, defend = ${quote(p.defend)}` : '';
    pd.push(`  { unit = ${quote(unit.name)}, weapons = [${[...p.weapons].sort((a, b) => a - b).join(', ')}]${defend} },`);
  }
  for (const o of v.keptPd) pd.push(`  ${tomlValue(o)},`);
  if (pd.length) out.push('pd = [', ...pd, ']');
  const extra = v.extra.replace(/\s+$/, '');
  if (extra) out.push(...extra.split('\n'));
  return out;
}

// The orders file the form makes, and which volley editor each line is from.
function formToml() {
  const lines = [`commander = ${quote(me.side_name)}`, 'scenario = "scenario.toml"', ...formModel.root];
  const map = lines.map(() => null);
  for (const fm of formModel.formations) {
    if (!fm.plotted) continue;
    const count = fm.same ? 1 : 3;
    lines.push('', `# Formation ${fm.f.name}: ${fm.same ? 'the same orders in all three Volleys' : 'one table per Volley'}.`);
    map.push(null, null);
    for (let k = 0; k < count; k++) {
      const body = [...(k ? [''] : []), `[[plot.${tomlKey(fm.f.name)}.volley]]`, ...volleyToml(fm.f, fm.volleys[k])];
      lines.push(...body);
      map.push(...body.map(() => `${k}:${fm.f.name}`));
    }
  }
  for (const t of formModel.other) {
    const body = ['', ...t.split('\n')];
    lines.push(...body);
    map.push(...body.map(() => null));
  }
  lineMap = map;
  return `${lines.join('\n')}\n`;
}

// ---------- the orders form on the page ----------

function targetsFor(fm) {
  const form = me.form;
  const own = (form.own || []).filter((n) => n !== fm.f.name);
  return [...(form.targets || []), ...own];
}

function select(testid, label, options, value, onchange) {
  const values = options.map((o) => (Array.isArray(o) ? o[0] : o));
  const all = value && !values.includes(value) ? [...options, [value, value.startsWith('group:') ? `group ${value.slice(6)}` : value]] : options;
  const el = h('select', { testid, 'aria-label': label },
    all.map((o) => {
      const [v, text] = Array.isArray(o) ? o : [o, o];
      return h('option', { value: v }, text);
    }));
  el.value = value || '';
  el.addEventListener('change', () => onchange(el.value));
  return el;
}

function checkbox(testid, label, checked, onchange) {
  const input = h('input', { type: 'checkbox', testid });
  input.checked = checked;
  input.addEventListener('change', () => onchange(input.checked));
  return h('label', { class: 'check' }, input, ' ', label);
}

function volleyEditor(fm, k) {
  const f = fm.f;
  const v = fm.volleys[k];
  const id = `${f.name}-${k}`;
  const speed = h('input', { type: 'number', min: '0', step: '1', testid: `speed-${id}`, value: String(v.speed) });
  const evasionMax = Number.isInteger(f.evasion_max) ? f.evasion_max : Math.floor(f.thrust / 2);
  const evasion = h('input', { type: 'number', min: '0', max: String(evasionMax), step: '1', testid: `evasion-${id}`, value: String(v.evasion) });
  // Speed and Evasion add up to the Formation Thrust: changing one sets the other.
  speed.addEventListener('input', () => {
    v.speed = speed.value;
    const rest = f.thrust - Number(speed.value);
    if (speed.value !== '' && rest >= 0) { v.evasion = rest; evasion.value = String(rest); }
  });
  evasion.addEventListener('input', () => {
    v.evasion = evasion.value;
    const rest = f.thrust - Number(evasion.value);
    if (evasion.value !== '' && rest >= 0) { v.speed = rest; speed.value = String(rest); }
  });
  const targets = targetsFor(fm);
  const fireRows = [];
  for (const unit of f.units) {
    for (const fc of unit.fire_controls) {
      const key = rowKey(unit.name, fc);
      const rid = `${id}-${unit.name}-${fc}`;
      const row = v.fire[key] || { target: '', weapons: [], more: {} };
      const ensure = () => { v.fire[key] = row; return row; };
      const boxes = weaponsOf(unit, row.weapons, false).map((w) =>
        checkbox(`weapon-${rid}-${w}`, weaponName(unit, w), (row.weapons || []).includes(w), (on) => {
          const r = ensure();
          const list = r.weapons || [];
          r.weapons = on ? [...list.filter((x) => x !== w), w] : list.filter((x) => x !== w);
          defaultNote.hidden = true;
        }));
      const defaultNote = h('span', { class: 'muted', hidden: row.weapons !== null }, 'every weapon not assigned elsewhere (fam’s default)');
      fireRows.push(h('div', { class: 'order-row', testid: `fire-row-${rid}` },
        h('span', { class: 'row-head' }, `${f.units.length > 1 ? `${unit.name}, ` : ''}Fire Control ${fc} fires at `,
          select(`fire-target-${rid}`, `${unit.name} Fire Control ${fc}: target`, [['', '(does not fire)'], ...targets], row.target,
            (val) => { ensure().target = val; })),
        h('span', { class: 'weapons' }, boxes, defaultNote)));
    }
  }
  const pdRows = [];
  for (const unit of f.units) {
    const p = v.pd[unit.name] || { weapons: [], defend: '' };
    const numbers = weaponsOf(unit, p.weapons, true);
    if (!numbers.length) continue;
    const ensure = () => { v.pd[unit.name] = p; return p; };
    const others = f.units.filter((u) => u !== unit).map((u) => [u.name, `defend ${u.name}`]);
    pdRows.push(h('div', { class: 'order-row', testid: `pd-row-${id}-${unit.name}` },
      h('span', { class: 'row-head' }, `${f.units.length > 1 ? `${unit.name}: ` : ''}point defence with `),
      h('span', { class: 'weapons' }, numbers.map((w) =>
        checkbox(`pd-${id}-${unit.name}-${w}`, weaponName(unit, w), p.weapons.includes(w), (on) => {
          const q = ensure();
          q.weapons = on ? [...q.weapons.filter((x) => x !== w), w] : q.weapons.filter((x) => x !== w);
        })),
      others.length ? select(`pd-defend-${id}-${unit.name}`, `${unit.name}: point defence defends`, [['', 'own ship (or as fam allocates)'], ...others], p.defend,
        (val) => { ensure().defend = val; }) : null)));
  }
  const extra = h('textarea', { testid: `extra-${id}`, rows: String(Math.max(2, v.extra.split('\n').length + 1)), spellcheck: false,
    'aria-label': `Other orders of ${f.name}, ${fm.same ? 'all Volleys' : `Volley ${k + 1}`} (TOML)` });
  extra.value = v.extra;
  extra.addEventListener('input', () => { v.extra = extra.value; });
  const kept = v.keptFire.length + v.keptPd.length;
  return h('fieldset', { class: 'volley', testid: `volley-${id}` },
    h('legend', {}, fm.same ? 'All three Volleys' : `Volley ${k + 1}`),
    h('div', { class: 'place-errors', 'data-volley': `${k}:${f.name}` }),
    h('p', { class: 'order-line' },
      h('label', {}, 'Speed ', speed), h('label', {}, 'Evasion ', evasion),
      h('span', { class: 'hint' }, `together ${f.thrust}; Evasion at most ${evasionMax}`)),
    h('p', { class: 'order-line' }, h('span', {}, 'Maneuver '),
      select(`primary-word-${id}`, 'Primary maneuver', [['', '(none)'], ...WORDS], v.word, (val) => { v.word = val; }),
      select(`primary-target-${id}`, 'Maneuver against', [['', '(choose)'], ...targets], v.target, (val) => { v.target = val; })),
    fireRows.length ? h('div', { class: 'orders-block' }, h('h5', {}, 'Fire'), fireRows) : null,
    pdRows.length ? h('div', { class: 'orders-block' }, h('h5', {}, 'Point defence'), pdRows) : null,
    kept ? h('p', { class: 'hint' }, `${plural(kept, 'order', 'orders')} the form does not show ${kept === 1 ? 'is' : 'are'} kept as written.`) : null,
    h('details', { class: 'extra', open: v.extra.trim() !== '' },
      h('summary', {}, 'Other orders (TOML, kept as they are)'),
      h('p', { class: 'hint' }, 'Secondary maneuvers, shifts, damage control, fighters, launches… as in docs/orders.md.'),
      extra));
}

function formationEditor(fm) {
  const f = fm.f;
  const volleys = h('div', { class: 'volleys' });
  const unplotted = h('p', { class: 'hint' }, 'Without orders it plays its standing orders, else the default doctrine.');
  const draw = () => {
    volleys.hidden = !fm.plotted;
    sameBox.hidden = !fm.plotted;
    unplotted.hidden = fm.plotted;
    volleys.replaceChildren(...(fm.same ? [0] : [0, 1, 2]).map((k) => volleyEditor(fm, k)));
  };
  const plotted = checkbox(`plotted-${f.name}`, 'Give this Formation orders', fm.plotted, (on) => { fm.plotted = on; draw(); });
  if (f.active === false) {
    // In the Reserve, entering from it, or out of the fight: no plot.
    fm.plotted = false;
    return h('fieldset', { class: 'formation', testid: `formation-${f.name}` },
      h('legend', {}, f.name), h('p', { class: 'hint' }, 'Not in the fight this Exchange (in the Reserve, or out of the fight): it takes no orders.'));
  }
  const sameBox = checkbox(`same-${f.name}`, 'Same orders in all three Volleys', fm.same, (on) => {
    fm.same = on;
    if (!on) fm.volleys = [0, 1, 2].map(() => structuredClone(fm.volleys[0]));
    draw();
  });
  draw();
  return h('fieldset', { class: 'formation', testid: `formation-${f.name}` },
    h('legend', {}, `${f.name} · Formation Thrust ${f.thrust}`),
    h('p', { class: 'hint' }, f.units.map((u) => u.name).join(', ')),
    h('p', {}, plotted, sameBox),
    unplotted,
    volleys);
}

function showPlotErrors(err, sent) {
  for (const el of document.querySelectorAll('#orders .place-errors')) el.replaceChildren();
  const box = $('plot-errors');
  if (!err) { box.replaceChildren(); return; }
  box.replaceChildren(refusalBlock(err, sent));
  if (sent && lineMap.length) {
    for (const d of err.diagnostics || []) {
      const place = lineMap[(d.line || 0) - 1];
      const slot = place && [...document.querySelectorAll('#orders .place-errors')].find((el) => el.dataset.volley === place);
      if (slot) {
        slot.append(h('div', { class: 'field-error', testid: 'field-error' }, h('p', {}, playerWords(d))));
        for (let det = slot.closest('details'); det; det = det.parentElement.closest('details')) det.open = true;
      }
    }
  }
  box.querySelector('.field-error')?.scrollIntoView({ block: 'nearest' });
}

async function sendPlot(text, fromForm) {
  showPlotErrors(null);
  $('plot-sent').textContent = 'Sending…';
  if (text.length > MAX_UPLOAD) {
    $('plot-sent').textContent = '';
    showPlotErrors(new ApiError('The orders are larger than 256 KiB: is it the right file?', 0, null));
    return;
  }
  const sentBox = $('plot-sent');
  try {
    const answer = await api('PUT', `${API}/plot`, { text });
    meKey = null; // the plot itself changed: ask for `me` again
    await refreshDisplay();
    const warnings = answer.warnings || [];
    // When this plot resolved the Exchange, the section is the next one's.
    const box = sentBox.isConnected ? sentBox : $('plot-sent');
    if (!box) return;
    box.replaceChildren(
      h('span', { testid: 'plot-accepted' }, `Your plot for Exchange ${answer.exchange} was accepted.`),
      answer.resolved ? ' Every plot was in: the Exchange resolved.' : '',
      warnings.length ? h('ul', { class: 'diagnostics' }, warnings.map((w) => (typeof w === 'string' ? h('li', { class: 'warning' }, w) : diagnosticItem({ severity: 'warning', ...w })))) : null);
  } catch (err) {
    if (sentBox.isConnected) sentBox.textContent = '';
    showPlotErrors(err, fromForm ? text : null);
  }
}

// ---------- the commander's part ----------

function mySide() {
  return display && me ? display.sides.find((x) => x.side === me.side) : null;
}

function renderCommander() {
  const side = mySide();
  const signedUp = !!(side && side.commander);
  const phase = `${display.status}|${me.exchange}|${signedUp}`;
  if (phase === commanderPhase) { updateCommander(); return; }
  commanderPhase = phase;
  const body = [];
  if (!signedUp) {
    const name = h('input', { type: 'text', testid: 'signup-name', maxlength: '60', autocomplete: 'nickname', required: true });
    const error = h('div', { testid: 'signup-error', role: 'alert' });
    const form = h('form', { class: 'signup', testid: 'signup-form' },
      h('p', {}, `You are invited to command ${me.side_name}. Sign up with the name the other players will see.`),
      h('p', {}, h('label', {}, 'Your name ', name), ' ', h('button', { type: 'submit', class: 'primary', testid: 'signup' }, 'Sign up')),
      error);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      error.replaceChildren();
      if (!name.value.trim()) { error.replaceChildren(h('p', { class: 'field-error' }, 'Type a name first.')); return; }
      try {
        display = await api('POST', `${API}/join`, { body: { name: name.value.trim() } });
        displayText = '';
        renderDisplay();
        await loadMe();
      } catch (err) {
        error.replaceChildren(refusalBlock(err));
      }
    });
    body.push(form);
  } else if (display.status === 'signup') {
    body.push(h('p', { testid: 'waiting-signup' }, 'You are signed up. The game starts when every side has a commander.'));
  } else if (display.status === 'progress') {
    body.push(ordersSection());
  } else {
    body.push(h('p', {}, 'The game is over.'));
  }
  $('me-body').replaceChildren(...body);
  updateCommander();
}

function ordersSection() {
  const section = h('div', { id: 'orders', testid: 'orders' },
    h('h3', { testid: 'orders-heading' }, `Your orders for Exchange ${me.exchange}`),
    h('p', { id: 'plot-status', testid: 'plot-status' }),
    h('div', { id: 'plot-sent', testid: 'plot-sent', role: 'status' }),
    h('div', { id: 'plot-errors', testid: 'plot-errors', role: 'alert' }));
  let problem = null;
  formModel = null;
  if (me.form) {
    for (const [what, text] of [['your submitted plot', me.plot], ['the orders template', me.template]]) {
      if (!text) continue;
      try {
        formModel = modelFrom(me.form, text, what === 'the orders template' ? me.template_plot : null);
        if (what !== 'your submitted plot' && me.plot) problem = 'The form cannot read your submitted plot, so it starts from the template.';
        break;
      } catch (e) {
        problem = `The form cannot read ${what} (${e.message}); upload orders as a file instead.`;
      }
    }
  }
  if (formModel) {
    const form = h('form', { class: 'orders-form', testid: 'orders-form', novalidate: true },
      problem ? h('p', { class: 'note' }, problem) : null,
      h('p', { class: 'hint' }, 'Filled in from ', me.plot && !problem ? 'your submitted plot' : 'the orders template (what fam would play for you)', '. Ranges and weapons are in “The battle” below.'),
      formModel.formations.map(formationEditor),
      formModel.root.length || formModel.other.length
        ? h('p', { class: 'hint' }, 'Standing orders and other tables of the plot are kept as written.') : null,
      h('details', { class: 'preview', ontoggle: (e) => { if (e.target.open) $('form-preview').textContent = formToml(); } },
        h('summary', {}, 'The orders file this form makes'), h('pre', { id: 'form-preview', testid: 'form-preview' })),
      h('p', {}, h('button', { type: 'submit', class: 'primary', testid: 'submit-plot' }, me.plot ? 'Replace my plot' : 'Submit my plot')));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const text = formToml();
      if ($('form-preview')) $('form-preview').textContent = text;
      sendPlot(text, true);
    });
    section.append(form);
  } else {
    section.append(h('p', { class: 'note' }, problem || 'No form for this side: upload orders as a file.'));
  }
  const upload = h('input', { type: 'file', accept: '.toml,.txt', testid: 'upload-plot' });
  upload.addEventListener('change', async () => {
    const file = upload.files[0];
    if (!file) return;
    const text = await file.text();
    upload.value = '';
    sendPlot(text, false);
  });
  section.append(
    h('p', { class: 'upload' }, h('label', {}, 'Upload orders (TOML) ', upload)),
    h('p', { class: 'hint' }, 'Or from the command line: ', h('code', {}, 'fam game submit'), '.'),
    h('details', { testid: 'my-plot-box', id: 'my-plot-box' }, h('summary', {}, 'Your submitted plot'), h('pre', { id: 'my-plot', testid: 'my-plot' })),
    h('details', {}, h('summary', {}, 'The orders template (what fam plays for you without a plot)'),
      h('p', {}, h('button', { type: 'button', class: 'small', testid: 'download-template', onclick: () => saveText(me.template, `orders-${me.side_name}.toml`) }, 'Download the template')),
      h('pre', { testid: 'template' }, me.template || '')),
    ...[currentDownload()].filter(Boolean));
  return section;
}

function updateCommander() {
  const status = $('plot-status');
  if (status) {
    status.textContent = me.plot
      ? `Your plot is in. You can replace it until Exchange ${me.exchange} resolves.`
      : `No plot yet. Without one, ${me.side_name} plays the orders template when the Exchange resolves.`;
    status.className = me.plot ? 'ok' : 'muted';
  }
  if ($('my-plot')) {
    $('my-plot').textContent = me.plot || '(none yet)';
    $('my-plot-box').open = !!me.plot && !formModel;
  }
}

// ---------- the referee's part ----------

function renderReferee() {
  if (!refereeBuilt) {
    refereeBuilt = true;
    const reason = h('input', { type: 'text', id: 'end-reason', testid: 'end-reason', value: 'ended by the referee', 'aria-label': 'Why the game ends' });
    $('referee-body').replaceChildren(
      h('div', { id: 'ref-sides', testid: 'ref-sides' }),
      h('p', { class: 'actions' },
        h('button', { type: 'button', id: 'resolve-now', testid: 'resolve-now', onclick: refereeAction(async () => {
          if (!confirmInPage('resolve')) return;
          display = await api('POST', `${API}/resolve`);
          return 'Resolved with the plots that were in.';
        }) }, 'Resolve now'),
        h('span', { class: 'end' }, h('label', {}, 'Reason ', reason),
          h('button', { type: 'button', id: 'end-game', testid: 'end-game', class: 'danger', onclick: refereeAction(async () => {
            if (!confirmInPage('end')) return;
            display = await api('POST', `${API}/end`, { body: { reason: reason.value.trim() || 'ended by the referee' } });
            return 'The game is over.';
          }) }, 'End game'))),
      h('p', { id: 'referee-msg', testid: 'referee-msg', role: 'status' }),
      h('h3', {}, 'Submitted plots'),
      h('p', {}, h('button', { type: 'button', class: 'small', testid: 'reload-plots', onclick: () => { refPlotsKey = null; loadRefereePlots(); } }, 'Reload plots')),
      h('div', { id: 'ref-plots', testid: 'ref-plots' }),
      h('div', { id: 'ref-download' }));
  }
  $('ref-download').replaceChildren(...[currentDownload()].filter(Boolean));
  const progress = display.status === 'progress';
  $('resolve-now').disabled = !progress;
  $('end-game').disabled = display.status === 'completed';
  $('ref-sides').replaceChildren(h('div', { class: 'scroll' }, h('table', {},
    h('thead', {}, h('tr', {}, ['Side', 'Commander', 'Link', `Plot for Exchange ${display.exchange}`].map((t) => h('th', {}, t)))),
    h('tbody', {}, display.sides.map((side) => h('tr', { testid: `ref-side-${side.side}` },
      h('td', {}, side.name),
      h('td', { testid: `side-status-${side.side}` }, side.commander ? `signed up as ${side.commander}` : 'not signed up yet: the link is unused'),
      h('td', {}, h('button', { type: 'button', class: 'small', testid: `reissue-${side.side}`, onclick: () => reissue(side) }, 'Re-issue link'),
        reissued.has(side.side) ? linkBox(reissued.get(side.side), `new-link-${side.side}`) : null),
      h('td', { testid: `ref-submitted-${side.side}` }, progress ? (side.submitted ? '✓ in' : 'not yet') : '—')))))));
  loadRefereePlots();
}

// A two-click confirmation without a modal dialog: the first click arms.
const armed = {};
function confirmInPage(what) {
  const button = what === 'resolve' ? $('resolve-now') : $('end-game');
  if (armed[what]) { armed[what] = false; button.classList.remove('armed'); return true; }
  armed[what] = true;
  button.classList.add('armed');
  $('referee-msg').textContent = what === 'resolve' ? 'Click “Resolve now” again to resolve this Exchange with the plots that are in.' : 'Click “End game” again to end the game for everyone.';
  setTimeout(() => { armed[what] = false; button.classList.remove('armed'); }, 8000);
  return false;
}

function refereeAction(fn) {
  return async () => {
    try {
      const msg = await fn();
      if (msg === undefined) return;
      $('referee-msg').textContent = msg;
      displayText = '';
      renderDisplay();
      await loadMe();
    } catch (err) {
      $('referee-msg').replaceChildren(refusalBlock(err));
    }
  };
}

async function reissue(side) {
  try {
    const answer = await api('POST', `${API}/reissue`, { body: { side: side.side } });
    reissued.set(side.side, `${location.origin}/games/${encodeURIComponent(GAME)}#${answer.token}`);
    $('referee-msg').textContent = `${side.name}’s old link no longer works: send the new one.`;
    renderReferee();
  } catch (err) {
    $('referee-msg').replaceChildren(refusalBlock(err));
  }
}

function linkBox(url, testid) {
  const input = h('input', { type: 'text', readonly: true, value: url, class: 'link', testid, 'aria-label': 'The new link' });
  const copy = h('button', { type: 'button', class: 'small', testid: `copy-${testid}` }, 'Copy');
  copy.addEventListener('click', async () => {
    input.select();
    try { await navigator.clipboard.writeText(url); copy.textContent = 'Copied'; } catch (e) {
      try { copy.textContent = document.execCommand('copy') ? 'Copied' : 'Select and copy'; } catch (e2) { copy.textContent = 'Select and copy'; }
    }
  });
  return h('span', { class: 'link-row' }, input, copy);
}

async function loadRefereePlots() {
  const key = `${display.exchange}|${display.status}|${display.sides.map((x) => x.submitted).join(',')}`;
  if (key === refPlotsKey) return;
  refPlotsKey = key;
  const blocks = [];
  for (const side of display.sides) {
    if (!side.submitted) {
      blocks.push(h('p', { class: 'muted', testid: `plot-of-${side.side}` }, `${side.name}: no plot yet.`));
      continue;
    }
    try {
      const plot = await api('GET', `${API}/plots/${encodeURIComponent(side.side)}`);
      blocks.push(h('details', { open: true }, h('summary', {}, `${side.name}, Exchange ${plot.exchange}${plot.submitted_at ? `, submitted ${when(plot.submitted_at)}` : ''}`),
        h('pre', { testid: `plot-of-${side.side}` }, plot.text)));
    } catch (err) {
      blocks.push(h('p', { class: 'muted', testid: `plot-of-${side.side}` }, `${side.name}: ${err.status === 404 ? 'no plot yet.' : err.message}`));
    }
  }
  if ($('ref-plots')) $('ref-plots').replaceChildren(...blocks);
}

// ---------- downloads (the token goes as a header, so through a blob) ----------

function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function saveText(text, name) { saveBlob(new Blob([text || ''], { type: 'text/plain' }), name); }

async function downloadTurn(k, button) {
  const old = button.textContent;
  button.disabled = true;
  button.textContent = 'Downloading…';
  try {
    const res = await api('GET', `${API}/turns/${k}.tar`, { raw: true });
    saveBlob(await res.blob(), `exchange-${k}.tar`);
    button.textContent = old;
  } catch (err) {
    button.textContent = `${old} (failed: ${err.message})`;
  } finally {
    button.disabled = false;
  }
}

function currentDownload() {
  if (!display || display.status !== 'progress') return null;
  const k = display.exchange;
  const button = h('button', { type: 'button', class: 'small', testid: 'download-current' }, `Download Exchange ${k}’s files (.tar)`);
  button.addEventListener('click', () => downloadTurn(k, button));
  return h('p', {}, button, ' ', h('span', { class: 'hint' }, 'the scenario and ship records as they stand, for fam on your computer'));
}

// ---------- the public display ----------

const STATUS_WORDS = { signup: 'In signup', progress: 'In progress', completed: 'Completed' };

function sideName(side) {
  if (typeof side === 'number') return (display.sides.find((x) => x.side === side) || {}).name || String(side);
  return String(side);
}

function sideIndex(side) {
  if (typeof side === 'number') return side;
  const found = display.sides.find((x) => x.name === side);
  return found ? found.side : -1;
}

function renderDisplay() {
  const d = display;
  document.title = `${d.title} — fam`;
  $('title').textContent = d.title;
  const signed = d.sides.filter((x) => x.commander).length;
  let line = `${STATUS_WORDS[d.status] || d.status}`;
  if (d.status === 'signup') line += `: ${signed} of ${plural(d.sides.length, 'side has', 'sides have')} a commander.`;
  if (d.status === 'progress') line += `: Exchange ${d.exchange} is being plotted.`;
  if (d.status === 'completed') line += d.outcome ? `: ${d.outcome}` : '.';
  $('summary-line').replaceChildren(h('span', { testid: 'status' }, line), ' ', h('span', { id: 'deadline', testid: 'deadline' }));
  tickDeadline();
  $('sides').replaceChildren(h('ul', { class: 'sides' }, d.sides.map((side) => h('li', { testid: `side-${side.side}` },
    h('b', {}, side.name), ': ', side.commander ? side.commander : h('span', { class: 'muted' }, 'no commander yet'),
    d.status === 'progress' ? h('span', { class: side.submitted ? 'tick' : 'muted', testid: `submitted-${side.side}` },
      side.submitted ? ' ✓ plot in' : ' … plotting') : null))));
  renderState(d.state, d.status === 'completed' ? 'as the battle ended' : `as Exchange ${d.exchange} starts`);
  renderChart();
  renderTurns();
  // The parts for a link's holder wait for `me` to match this display.
  if (me && meKey === meKeyOf(d)) {
    if (me.role === 'referee') renderReferee();
    if (me.role === 'commander') renderCommander();
  }
}

function tickDeadline() {
  const el = $('deadline');
  if (!el || !display) return;
  if (display.status !== 'progress') { el.textContent = ''; return; }
  if (!display.deadline) {
    el.textContent = display.deadline_rule ? '' : 'It resolves when every plot is in.';
    return;
  }
  const left = new Date(display.deadline).getTime() - Date.now();
  el.textContent = left > 0
    ? `Deadline ${when(display.deadline)} (in ${duration(left)}); then sides without a plot play their orders template.`
    : 'The deadline has passed: resolving…';
}

function renderState(state, caption) {
  if (!state) { $('state').replaceChildren(); return; }
  const ranges = state.ranges || [];
  const units = state.units || [];
  $('state').replaceChildren(
    h('div', { class: 'scroll' }, h('table', { testid: 'ranges' },
      h('caption', {}, `Ranges ${caption}`),
      h('thead', {}, h('tr', {}, h('th', {}, 'Between'), h('th', { class: 'num' }, 'MU'))),
      h('tbody', {}, ranges.map((r) => h('tr', {}, h('td', {}, r.between.join(' – ')), h('td', { class: 'num' }, String(r.mu))))))),
    h('div', { class: 'scroll' }, h('table', { testid: 'units' },
      h('caption', {}, `Units ${caption}`),
      h('thead', {}, h('tr', {}, ['Unit', 'Side', 'Formation', 'Status', 'Hull'].map((t) => h('th', {}, t)))),
      h('tbody', {}, units.map((u) => h('tr', { class: lost(u) ? 'lost' : null },
        h('td', {}, u.name), h('td', {}, sideName(u.side)), h('td', {}, u.formation ?? ''), h('td', {}, u.status ?? ''), h('td', { class: 'num' }, String(u.hull ?? ''))))))));
}

function lost(u) {
  return typeof u.lost === 'boolean' ? u.lost : /destroy|derelict|surrender|struck|abandon/i.test(String(u.status || ''));
}

// ---------- the picture: ranges and losses over the Exchanges ----------

const COLOURS = ['#1f5fa8', '#a4262c', '#2e7d32', '#8a5a00', '#6a1b9a', '#00838f', '#5d4037', '#c2185b'];

function renderChart() {
  const turns = [...(display.turns || [])].sort((a, b) => a.exchange - b.exchange);
  const points = turns.filter((t) => t.summary).map((t) => ({ label: `${t.exchange}`, data: t.summary }));
  // Where the battle started, when the display says (else the picture
  // begins after the first Exchange).
  const start = display.start || (turns.length ? null : display.state);
  if (start) points.unshift({ label: 'start', data: start });
  if (!points.length) { $('chart').hidden = true; return; }
  $('chart').hidden = false;
  const pairs = [];
  for (const p of points) for (const r of p.data.ranges || []) {
    const name = r.between.join(' – ');
    if (!pairs.includes(name)) pairs.push(name);
  }
  const sides = display.sides.map((x) => x.side);
  const lostBy = (p, side) => (p.data.units || []).filter((u) => sideIndex(u.side) === side && lost(u)).length;
  const unitsBy = (side) => Math.max(1, ...points.map((p) => (p.data.units || []).filter((u) => sideIndex(u.side) === side).length));
  const W = 640; const H = 300; const L = 44; const R = 16; const T = 18;
  const top = { y0: T, y1: 150 }; const bottom = { y0: 190, y1: 270 };
  const maxMu = Math.max(12, ...points.flatMap((p) => (p.data.ranges || []).map((r) => r.mu)));
  const maxLost = Math.max(1, ...sides.map(unitsBy));
  const n = points.length;
  const x = (k) => (n === 1 ? (L + W - R) / 2 : L + (k * (W - L - R)) / (n - 1));
  const yMu = (mu) => top.y1 - (mu / maxMu) * (top.y1 - top.y0);
  const yLost = (c) => bottom.y1 - (c / maxLost) * (bottom.y1 - bottom.y0);
  const grid = [];
  for (const mu of [0, Math.round(maxMu / 2), maxMu]) {
    grid.push(s('line', { x1: L, x2: W - R, y1: yMu(mu), y2: yMu(mu), class: 'grid' }), s('text', { x: L - 6, y: yMu(mu) + 4, class: 'axis', 'text-anchor': 'end' }, String(mu)));
  }
  for (const c of [0, maxLost]) {
    grid.push(s('line', { x1: L, x2: W - R, y1: yLost(c), y2: yLost(c), class: 'grid' }), s('text', { x: L - 6, y: yLost(c) + 4, class: 'axis', 'text-anchor': 'end' }, String(c)));
  }
  points.forEach((p, k) => grid.push(s('text', { x: x(k), y: H - 8, class: 'axis', 'text-anchor': 'middle' }, p.label)));
  grid.push(s('text', { x: W - R, y: top.y0 - 3, class: 'axis', 'text-anchor': 'end' }, 'range (MU)'),
    s('text', { x: W - R, y: bottom.y0 - 6, class: 'axis', 'text-anchor': 'end' }, 'Units lost'));
  const lines = [];
  pairs.forEach((name, i) => {
    const pts = points.map((p, k) => {
      const r = (p.data.ranges || []).find((q) => q.between.join(' – ') === name);
      return r ? [x(k), yMu(r.mu), r.mu] : null;
    }).filter(Boolean);
    const colour = COLOURS[i % COLOURS.length];
    if (pts.length > 1) lines.push(s('polyline', { points: pts.map(([a, b]) => `${a},${b}`).join(' '), fill: 'none', stroke: colour, 'stroke-width': 2.5 }));
    for (const [a, b, mu] of pts) lines.push(s('circle', { cx: a, cy: b, r: 4, fill: colour }, s('title', {}, `${name}: ${mu} MU`)));
  });
  const barW = Math.min(24, (W - L - R) / Math.max(1, n) / (sides.length + 1));
  points.forEach((p, k) => sides.forEach((side, j) => {
    const c = lostBy(p, side);
    const bx = x(k) - (sides.length * barW) / 2 + j * barW;
    lines.push(s('rect', { x: bx, y: yLost(c), width: Math.max(2, barW - 2), height: Math.max(0, bottom.y1 - yLost(c)), fill: COLOURS[(j + 4) % COLOURS.length] },
      s('title', {}, `${sideName(side)}: ${plural(c, 'Unit', 'Units')} lost`)));
  }));
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'Ranges between Formations and Units lost by each side, Exchange by Exchange', 'data-testid': 'chart-svg' }, grid, lines);
  const legend = h('ul', { class: 'legend' },
    pairs.map((name, i) => h('li', {}, h('span', { class: 'swatch line', style: `background:${COLOURS[i % COLOURS.length]}` }), name)),
    sides.map((side, j) => h('li', {}, h('span', { class: 'swatch', style: `background:${COLOURS[(j + 4) % COLOURS.length]}` }), `${sideName(side)}: Units lost`)));
  $('chart-body').replaceChildren(svg, legend);
}

// ---------- resolved Exchanges ----------

const TRIGGER_WORDS = {
  'all plots in': 'every plot was in',
  deadline: 'the deadline passed: a side without a plot played its orders template',
  referee: 'the referee resolved it: a side without a plot played its orders template',
};

function renderTurns() {
  const turns = [...(display.turns || [])].sort((a, b) => b.exchange - a.exchange);
  if (!turns.length) {
    $('turns').replaceChildren(h('p', { class: 'muted' }, 'None yet.'));
    return;
  }
  const canDownload = !!(me && !tokenProblem);
  $('turns').replaceChildren(...turns.map((t, k) => {
    const open = turnOpen.has(t.exchange) ? turnOpen.get(t.exchange) : k === 0;
    // What the reader opened or folded stays so (a click on the summary:
    // the toggle event also fires for the page's own opening).
    const summary = h('summary', {}, `Exchange ${t.exchange}`, h('span', { class: 'muted' }, ` · resolved ${when(t.resolved_at)}`));
    const details = h('details', { class: 'turn', open, testid: `turn-${t.exchange}` }, summary,
      h('p', { testid: `trigger-${t.exchange}`, 'data-trigger': t.trigger }, `Resolved because ${TRIGGER_WORDS[t.trigger] || t.trigger}.`),
      canDownload ? h('p', {}, downloadButton(t.exchange)) : null,
      h('pre', { class: 'report', testid: `report-${t.exchange}` }, t.report));
    summary.addEventListener('click', () => turnOpen.set(t.exchange, !details.open));
    return details;
  }));
}

function downloadButton(k) {
  const button = h('button', { type: 'button', class: 'small', testid: `download-turn-${k}` }, `Download Exchange ${k}’s turn directory (.tar)`);
  button.addEventListener('click', () => downloadTurn(k, button));
  return button;
}

// ---------- loading ----------

async function refreshDisplay() {
  const res = await fetch(API, { cache: 'no-store' });
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try { message = JSON.parse(text).error.message; } catch (e) { /* as text */ }
    throw new ApiError(message, res.status, null);
  }
  if (text !== displayText) {
    displayText = text;
    display = JSON.parse(text);
    renderDisplay();
  }
  if (TOKEN && !tokenProblem && meKeyOf(display) !== meKey) await loadMe();
}

function meKeyOf(d) {
  return `${d.status}|${d.exchange}|${d.sides.map((x) => `${x.commander ?? ''}:${x.submitted}`).join(',')}|${(d.turns || []).length}`;
}

async function loadMe() {
  if (!TOKEN) return;
  const key = display ? meKeyOf(display) : null;
  try {
    me = await api('GET', `${API}/me`);
    meKey = key;
  } catch (err) {
    if (err.status === 401 || err.status === 403) {
      tokenProblem = err.status === 401
        ? 'This link does not work (any more): ask the referee for a new one. The game is shown as anyone sees it.'
        : err.message;
      me = null;
      renderWho();
      return;
    }
    throw err;
  }
  renderWho();
  if (me.role === 'commander') {
    $('me').hidden = false;
    renderCommander();
  } else if (me.role === 'referee') {
    $('referee').hidden = false;
    renderReferee();
  }
  renderTurns();
}

function renderWho() {
  const who = $('who');
  if (tokenProblem) {
    who.replaceChildren(h('span', { class: 'field-error', testid: 'token-error' }, tokenProblem));
    $('me').hidden = true;
    $('referee').hidden = true;
  } else if (me && me.role === 'referee') {
    who.textContent = 'You are the referee of this game. Keep this page’s address secret.';
  } else if (me && me.role === 'commander') {
    const side = mySide();
    who.textContent = `You command ${me.side_name}${side && side.commander ? ` as ${side.commander}` : ''}. Keep this page’s address secret.`;
  } else {
    who.textContent = 'You are watching: anyone may read this page.';
  }
}

let failures = 0;
async function poll() {
  try {
    await refreshDisplay();
    if (failures) showNotice(null);
    failures = 0;
  } catch (err) {
    failures++;
    showNotice(`Could not update the game: ${err.message}`);
  }
  setTimeout(poll, failures ? Math.min(30_000, POLL_MS * 2 ** failures) : POLL_MS);
}

async function start() {
  $('feed-link').href = `/games/${encodeURIComponent(GAME)}/feed.atom`;
  window.addEventListener('hashchange', () => location.reload());
  try {
    await refreshDisplay();
    if (TOKEN && !me && !tokenProblem) await loadMe();
    renderWho();
  } catch (err) {
    showNotice(err.status === 404 ? 'No such game: check the address.' : `Could not load the game: ${err.message}`);
    failures = 1;
  }
  document.body.dataset.ready = 'true';
  setInterval(tickDeadline, 1000);
  setTimeout(poll, POLL_MS);
}

start();
