import { render } from 'preact';
import 'katex/dist/katex.min.css';
import './styles.css';
import { Login } from './ui/Login.tsx';
import { App } from './ui/App.tsx';
import { applyTheme } from './util.ts';

applyTheme();
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme());

const root = document.getElementById('app')!;
if (location.pathname.startsWith('/login')) render(<Login />, root);
else render(<App />, root);
