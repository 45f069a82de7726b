#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx: no build step between a clone and a running platform.
import { register } from 'tsx/esm/api';
register();
await import('../src/cli.ts');
