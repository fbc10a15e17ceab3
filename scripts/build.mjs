// `npm run build`: always compiles (see build-steps.mjs).
import { fileURLToPath } from 'node:url';
import { build } from './build-steps.mjs';

process.exitCode = build(fileURLToPath(new URL('..', import.meta.url)));
