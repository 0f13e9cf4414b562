// A worker thread starts without the TypeScript loader of the thread that started it (tsx in
// production and the bench, Vite's in tests), so it registers tsx before loading the writer.
import { register } from 'tsx/esm/api';

register();
await import('./vote-writer.ts');
