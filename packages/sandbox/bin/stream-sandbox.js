#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx: no build step between a clone and a running sandbox.
import { register } from 'tsx/esm/api';
register();
await import('../src/cli.ts');
