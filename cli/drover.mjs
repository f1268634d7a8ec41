#!/usr/bin/env node
// The `drover` bin: loads tsx's ESM hooks into this process, then runs the TypeScript CLI, so
// there is no build step and no second node process.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
await main();
