import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The listener bundle must stay small: studio and report screens are lazy-loaded chunks.
export default defineConfig({
  root: 'client',
  plugins: [react()],
  build: { outDir: '../dist/client', emptyOutDir: true, sourcemap: false },
  server: { proxy: { '/api': 'http://127.0.0.1:4510', '/media': 'http://127.0.0.1:4510' } },
});
