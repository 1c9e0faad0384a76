// The page that creates a hosted game (docs/host.md): the referee uploads a
// scenario and the ship records fam's library lacks, picks a seed and a
// deadline, and gets back the referee's link and one link per commander.
// No framework, no request but to the page's own server.

const $ = (id) => document.getElementById(id);
const MAX_FILE = 1024 * 1024;

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

class ApiError extends Error {
  constructor(message, status, detail) {
    super(message);
    this.status = status;
    this.diagnostics = (detail && detail.diagnostics) || [];
    this.rendered = (detail && detail.rendered) || '';
  }
}

async function postJson(path, body) {
  let res;
  try {
    res = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  } catch (e) {
    throw new ApiError('The fam server did not answer (is `fam serve` still running?)', 0, null);
  }
  const text = await res.text();
  if (res.ok) return JSON.parse(text);
  let detail = null;
  try { detail = JSON.parse(text).error; } catch (e) { /* not JSON */ }
  throw new ApiError((detail && detail.message) || text || res.statusText, res.status, detail);
}

// A diagnostic in a player's words: what is wrong, what fam expected, the
// help, and where (file:line:column).
function diagnosticItem(d) {
  let text = String(d.message || '').replace(/`([^`]*)`/g, '“$1”');
  if (d.expected) text += ` (fam expected ${d.expected})`;
  if (d.help) text += `. ${[].concat(d.help).map((x) => String(x).charAt(0).toUpperCase() + String(x).slice(1)).join('. ')}`;
  const where = [d.file, d.line, d.column].filter((x) => x !== null && x !== undefined && x !== '').join(':');
  return h('li', { class: d.severity === 'warning' ? 'warning' : null },
    text.charAt(0).toUpperCase() + text.slice(1), where ? [' ', h('code', {}, where)] : null);
}

function showError(err) {
  const box = $('create-errors');
  const diags = err.diagnostics || [];
  box.replaceChildren(h('div', { class: 'field-error' },
    h('p', {}, h('b', {}, 'fam can’t host this game yet. '), err.message),
    diags.length ? h('ul', { class: 'diagnostics' }, diags.map(diagnosticItem)) : null,
    err.rendered ? h('details', {}, h('summary', {}, 'As fam check prints it'), h('pre', { class: 'rendered' }, err.rendered)) : null));
  box.scrollIntoView({ block: 'nearest' });
}

function readText(file) {
  if (file.size > MAX_FILE) return Promise.reject(new ApiError(`${file.name} is larger than 1 MiB: is it the right file?`, 0, null));
  return file.text();
}

function listFiles() {
  const names = [...$('scenario-file').files, ...$('ship-files').files].map((f) => f.name);
  $('file-list').textContent = names.length ? `Will send: ${names.join(', ')}` : '';
}

async function copy(input, button) {
  input.select();
  let ok = false;
  try {
    await navigator.clipboard.writeText(input.value);
    ok = true;
  } catch (e) {
    try { ok = document.execCommand('copy'); } catch (e2) { ok = false; }
  }
  button.textContent = ok ? 'Copied' : 'Select and copy';
  setTimeout(() => { button.textContent = 'Copy'; }, 2000);
}

function linkRow(label, url, testid) {
  const input = h('input', { type: 'text', readonly: true, value: url, class: 'link', testid, 'aria-label': label });
  const button = h('button', { type: 'button', class: 'small', testid: `copy-${testid}` }, 'Copy');
  button.addEventListener('click', () => copy(input, button));
  return h('p', { class: 'link-row' }, h('span', { class: 'link-label' }, label), input, button);
}

async function create(event) {
  event.preventDefault();
  $('create-errors').replaceChildren();
  const scenario = $('scenario-file').files[0];
  if (!scenario) {
    showError(new ApiError('Choose the scenario file first.', 0, null));
    return;
  }
  const seed = $('seed').value.trim();
  if (seed && !/^[0-9]{1,20}$/.test(seed)) {
    showError(new ApiError('The seed is a whole number (digits only), or empty for a random one.', 0, null));
    return;
  }
  const deadline = $('deadline').value.trim();
  if (deadline && !/^[0-9]+[smhd]$/.test(deadline)) {
    showError(new ApiError('The deadline is empty (none), or a number and a unit: 90s, 10m, 24h, 3d.', 0, null));
    return;
  }
  const button = $('create');
  button.disabled = true;
  try {
    const files = [];
    for (const f of $('ship-files').files) files.push({ name: f.name, text: await readText(f) });
    const body = {
      scenario: { name: scenario.name, text: await readText(scenario) },
      files,
      seed: seed || null,
      deadline: deadline || null,
    };
    const game = await postJson('/api/games', body);
    showCreated(game);
  } catch (err) {
    showError(err);
  } finally {
    button.disabled = false;
  }
}

function showCreated(game) {
  const base = `${location.origin}/games/${encodeURIComponent(game.id)}`;
  const rows = [linkRow('Referee', `${base}#${game.referee}`, 'referee-link'), h('h3', {}, 'Commanders')];
  for (const c of game.commanders) {
    rows.push(linkRow(c.name, `${base}#${c.token}`, `commander-link-${c.name}`));
  }
  rows.push(h('p', {}, 'The public page, for anyone (no link needed to watch): ', h('a', { href: base, testid: 'public-link' }, base)));
  $('links').replaceChildren(...rows);
  $('open-referee').href = `${base}#${game.referee}`;
  $('created').hidden = false;
  $('create-form').hidden = true;
  $('created').scrollIntoView({ block: 'start' });
}

$('create-form').addEventListener('submit', create);
$('scenario-file').addEventListener('change', listFiles);
$('ship-files').addEventListener('change', listFiles);
document.body.dataset.ready = 'true';
