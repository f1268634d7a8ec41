// The dashboard's script, bundled by cli/dashboard/bundle.ts.
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

const root = document.getElementById('app')!;
// Preact keeps what is already in its container: the page's "Loading…" goes first.
root.replaceChildren();
render(<App />, root);
