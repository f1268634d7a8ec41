#!/usr/bin/env node
// The `drover` bin: runs the CLI from its esbuild bundle, built on the first run and again only
// when a source changed (cli/launch/cli-bundle.mjs), so a command does not compile TypeScript.
import { loadCli } from './launch/cli-bundle.mjs';

const cli = await loadCli();
await cli.main();
cli.saveCodeCache();
