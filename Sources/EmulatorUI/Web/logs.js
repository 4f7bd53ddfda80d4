// Logs: what the suite tells the developer (sign-in links, SMS codes, exports) and what its emulators log
// at info level and above, live (the UI API's event stream), filtered by level and text.
import { followLog, html, toast } from './api.js';

const levels = ['trace', 'debug', 'info', 'notice', 'warning', 'error', 'critical'];
let source = null;
let lines = [];
let filters = { level: 'info', text: '' };

function visible() {
  const lowest = levels.indexOf(filters.level);
  const text = filters.text.toLowerCase();
  return lines.filter((line) => levels.indexOf(line.level) >= lowest
    && (!text || line.message.toLowerCase().includes(text) || line.source.includes(text)));
}

function draw(main) {
  const shown = visible().slice(-1000);
  const rows = shown.map((line) => html`<tr class="level-${line.level}"><td class="mono">${new Date(line.time).toLocaleTimeString(undefined, { hour12: false })}</td>
    <td><span class="state level">${line.level}</span></td><td class="mono">${line.source}</td><td class="message">${line.message}</td></tr>`);
  const box = main.querySelector('[data-lines]');
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  box.innerHTML = rows.length
    ? html`<table><thead><tr><th>Time</th><th>Level</th><th>Source</th><th>Message</th></tr></thead><tbody>${rows}</tbody></table>`.__html
    : html`<p class="empty">${lines.length ? 'No line matches the filters.' : 'Nothing logged yet. Sign-in links, SMS codes and the emulators\' messages show here.'}</p>`.__html;
  if (atBottom) box.scrollTop = box.scrollHeight;
}

/** Renders the Logs page into `main` and follows the log. */
export async function render(main) {
  leave();
  lines = [];
  const options = levels.map((level) => html`<option ${html.raw(level === filters.level ? 'selected' : '')}>${level}</option>`);
  main.innerHTML = html`<h1>Logs</h1><div class="toolbar">
      <label class="inline">Lowest level <select data-filter="level">${options}</select></label>
      <input type="search" class="grow" placeholder="Filter by text" aria-label="Filter by text" data-filter="text" value="${filters.text}">
      <button type="button" class="danger" data-clear>Clear</button></div>
    <div class="panel scroll logs" data-lines><p class="empty">Loading…</p></div>`.__html;
  for (const control of main.querySelectorAll('[data-filter]')) {
    control.addEventListener('input', () => { filters[control.dataset.filter] = control.value; draw(main); });
  }
  main.querySelector('[data-clear]').addEventListener('click', async () => {
    await fetch('/api/logs', { method: 'DELETE' });
    lines.length = 0;
    draw(main);
    toast('Logs cleared.');
  });
  draw(main);
  source = followLog('/api/logs', 'line', lines, () => draw(main), main);
}

/** Stops following the log. */
export function leave() {
  if (source) source.close();
  source = null;
}
