#!/usr/bin/env node
import { createProgram } from '../src/cli/program.js';

await createProgram().parseAsync(process.argv);
