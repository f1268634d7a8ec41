// The dashboard's script, bundled by cli/dashboard/bundle.ts.
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

render(<App />, document.getElementById('app')!);
