// As the vote writer's thread (vote-writer-thread.mjs): a worker starts without the TypeScript
// loader of the thread that started it, so it registers tsx before loading the figures.
import { register } from 'tsx/esm/api';

register();
await import('./live-figures.ts');
