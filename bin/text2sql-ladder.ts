#!/usr/bin/env node
import { runCli } from '../src/cli/program.js';

process.exitCode = await runCli(process.argv);
