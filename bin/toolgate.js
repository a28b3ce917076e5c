#!/usr/bin/env -S node --disable-warning=ExperimentalWarning
// The `toolgate` command. Node >= 22.18 runs the TypeScript sources directly (type stripping).
import { main } from '../lib/cli/main.ts';

process.exitCode = await main(process.argv.slice(2));
