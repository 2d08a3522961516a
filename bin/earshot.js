#!/usr/bin/env node
// Entry point of the `earshot` CLI: loads TypeScript sources directly through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../infra/cli.ts');
