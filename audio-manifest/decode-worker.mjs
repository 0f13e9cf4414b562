// Worker entry: Node cannot load TypeScript in a worker by itself, so register tsx first.
import { register } from 'tsx/esm/api';

register();
await import('./decode-worker.ts');
