// Overview: every emulator of the suite with its address and its page.
import { currentConfig, html } from './api.js';

const emulators = [
  { name: 'auth', title: 'Authentication', page: 'auth' },
  { name: 'firestore', title: 'Firestore', page: 'firestore' },
  { name: 'database', title: 'Realtime Database', page: 'database' },
  { name: 'storage', title: 'Storage', page: 'storage' },
  { name: 'hub', title: 'Emulator Hub' },
];

/** Renders the overview into `main`. */
export async function render(main) {
  const config = currentConfig();
  const cards = emulators.map(({ name, title, page }) => {
    const emulator = config[name];
    const state = emulator ? html`<span class="state on">On</span>` : html`<span class="state off">Off</span>`;
    const address = emulator ? `${emulator.host}:${emulator.port}` : 'not started';
    const link = emulator && page ? html`<p><a class="button" href="#/${page}">Open ${title}</a></p>`
      : emulator && name !== 'hub' ? html`<p class="muted">No page in this UI yet: use the emulator's endpoints.</p>` : html``;
    return html`<section class="card" data-emulator="${name}"><h2>${title} ${state}</h2>
      <p class="address">${address}</p>${link}</section>`;
  });
  main.innerHTML = html`<h1>Overview</h1>
    <p class="muted">Project <span class="mono">${config.projectId}</span>. Every emulator runs in this one
    <span class="mono">hearth</span> process.</p>
    <div class="cards">${cards}</div>`.__html;
}
